from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProtocolVersion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROTOCOL_VERSION_UNSPECIFIED: _ClassVar[ProtocolVersion]
    PROTOCOL_VERSION_CURRENT: _ClassVar[ProtocolVersion]
PROTOCOL_VERSION_UNSPECIFIED: ProtocolVersion
PROTOCOL_VERSION_CURRENT: ProtocolVersion

class HelloRequest(_message.Message):
    __slots__ = ("protocol_version", "game", "seats", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    game: str
    seats: int
    options: _containers.ScalarMap[str, str]
    def __init__(self, protocol_version: _Optional[int] = ..., game: _Optional[str] = ..., seats: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...

class HelloReply(_message.Message):
    __slots__ = ("name", "version", "protocol_version", "error", "notices")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    NOTICES_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    protocol_version: int
    error: str
    notices: bool
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., protocol_version: _Optional[int] = ..., error: _Optional[str] = ..., notices: _Optional[bool] = ...) -> None: ...

class GameInfo(_message.Message):
    __slots__ = ("game", "game_id", "seat", "seed", "players", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    game: str
    game_id: str
    seat: int
    seed: str
    players: _containers.RepeatedScalarFieldContainer[str]
    options: _containers.ScalarMap[str, str]
    def __init__(self, game: _Optional[str] = ..., game_id: _Optional[str] = ..., seat: _Optional[int] = ..., seed: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("type", "card", "contract", "cards", "bid")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    type: str
    card: str
    contract: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    bid: str
    def __init__(self, type: _Optional[str] = ..., card: _Optional[str] = ..., contract: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ..., bid: _Optional[str] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seat", "action")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: Action
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class TrickCard(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class Cards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Scores(_message.Message):
    __slots__ = ("scores",)
    SCORES_FIELD_NUMBER: _ClassVar[int]
    scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, scores: _Optional[_Iterable[int]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("seat", "deal", "hand", "events", "trick", "cards_left", "tricks_won", "totals", "deal_scores", "king", "first_king", "contract", "contracts_left", "exposed", "rows", "finished", "dealer", "declarer", "bid", "trump")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    CARDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    TRICKS_WON_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    DEAL_SCORES_FIELD_NUMBER: _ClassVar[int]
    KING_FIELD_NUMBER: _ClassVar[int]
    FIRST_KING_FIELD_NUMBER: _ClassVar[int]
    CONTRACT_FIELD_NUMBER: _ClassVar[int]
    CONTRACTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    EXPOSED_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DECLARER_FIELD_NUMBER: _ClassVar[int]
    BID_FIELD_NUMBER: _ClassVar[int]
    TRUMP_FIELD_NUMBER: _ClassVar[int]
    seat: int
    deal: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    trick: _containers.RepeatedCompositeFieldContainer[TrickCard]
    cards_left: _containers.RepeatedScalarFieldContainer[int]
    tricks_won: _containers.RepeatedScalarFieldContainer[int]
    totals: _containers.RepeatedScalarFieldContainer[int]
    deal_scores: _containers.RepeatedCompositeFieldContainer[Scores]
    king: int
    first_king: int
    contract: str
    contracts_left: _containers.RepeatedScalarFieldContainer[str]
    exposed: _containers.RepeatedCompositeFieldContainer[Cards]
    rows: _containers.RepeatedScalarFieldContainer[str]
    finished: _containers.RepeatedScalarFieldContainer[int]
    dealer: int
    declarer: int
    bid: str
    trump: str
    def __init__(self, seat: _Optional[int] = ..., deal: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., trick: _Optional[_Iterable[_Union[TrickCard, _Mapping]]] = ..., cards_left: _Optional[_Iterable[int]] = ..., tricks_won: _Optional[_Iterable[int]] = ..., totals: _Optional[_Iterable[int]] = ..., deal_scores: _Optional[_Iterable[_Union[Scores, _Mapping]]] = ..., king: _Optional[int] = ..., first_king: _Optional[int] = ..., contract: _Optional[str] = ..., contracts_left: _Optional[_Iterable[str]] = ..., exposed: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., rows: _Optional[_Iterable[str]] = ..., finished: _Optional[_Iterable[int]] = ..., dealer: _Optional[int] = ..., declarer: _Optional[int] = ..., bid: _Optional[str] = ..., trump: _Optional[str] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("decision_id", "game", "kind", "observation", "legal", "time_ms", "time_bank_ms")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_MS_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    game: GameInfo
    kind: str
    observation: Observation
    legal: _containers.RepeatedCompositeFieldContainer[Action]
    time_ms: int
    time_bank_ms: int
    def __init__(self, decision_id: _Optional[int] = ..., game: _Optional[_Union[GameInfo, _Mapping]] = ..., kind: _Optional[str] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., time_ms: _Optional[int] = ..., time_bank_ms: _Optional[int] = ...) -> None: ...

class DecisionReply(_message.Message):
    __slots__ = ("decision_id", "action")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    action: Action
    def __init__(self, decision_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class DealEnd(_message.Message):
    __slots__ = ("game", "number", "hands", "events", "scores", "king", "dealer")
    GAME_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    KING_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    game: GameInfo
    number: int
    hands: _containers.RepeatedCompositeFieldContainer[Cards]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    scores: _containers.RepeatedScalarFieldContainer[int]
    king: int
    dealer: int
    def __init__(self, game: _Optional[_Union[GameInfo, _Mapping]] = ..., number: _Optional[int] = ..., hands: _Optional[_Iterable[_Union[Cards, _Mapping]]] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., king: _Optional[int] = ..., dealer: _Optional[int] = ...) -> None: ...

class GameEnd(_message.Message):
    __slots__ = ("game", "totals", "ranks")
    GAME_FIELD_NUMBER: _ClassVar[int]
    TOTALS_FIELD_NUMBER: _ClassVar[int]
    RANKS_FIELD_NUMBER: _ClassVar[int]
    game: GameInfo
    totals: _containers.RepeatedScalarFieldContainer[int]
    ranks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, game: _Optional[_Union[GameInfo, _Mapping]] = ..., totals: _Optional[_Iterable[int]] = ..., ranks: _Optional[_Iterable[int]] = ...) -> None: ...

class Notice(_message.Message):
    __slots__ = ("deal_end", "game_end")
    DEAL_END_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    deal_end: DealEnd
    game_end: GameEnd
    def __init__(self, deal_end: _Optional[_Union[DealEnd, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ...) -> None: ...

class Ack(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("decision", "deal_end", "game_end")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DEAL_END_FIELD_NUMBER: _ClassVar[int]
    GAME_END_FIELD_NUMBER: _ClassVar[int]
    decision: DecisionRequest
    deal_end: DealEnd
    game_end: GameEnd
    def __init__(self, decision: _Optional[_Union[DecisionRequest, _Mapping]] = ..., deal_end: _Optional[_Union[DealEnd, _Mapping]] = ..., game_end: _Optional[_Union[GameEnd, _Mapping]] = ...) -> None: ...
