"""The generated code in arena/wire/v1/ is exactly what `make proto` makes from protos/."""

from __future__ import annotations

from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ("bot_pb2.py", "bot_pb2.pyi", "bot_pb2_grpc.py")


def test_generated_code_matches_the_proto(tmp_path) -> None:
    code = protoc.main(
        [
            "protoc",
            f"-Iarena/wire/v1={ROOT / 'protos' / 'arena' / 'v1'}",  # as the Makefile maps it
            f"--python_out={tmp_path}",
            f"--pyi_out={tmp_path}",
            f"--grpc_python_out={tmp_path}",
            "arena/wire/v1/bot.proto",
        ]
    )
    assert code == 0
    for name in GENERATED:
        fresh = (tmp_path / "arena" / "wire" / "v1" / name).read_text()
        committed = (ROOT / "arena" / "wire" / "v1" / name).read_text()
        assert fresh == committed, f"arena/wire/v1/{name} is stale: run `make proto`"
