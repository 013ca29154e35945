/* A person's seat at an `arena play` table (docs/human.md).
 *
 * The page draws what the server sends and nothing else: each frame holds the seat's
 * view exactly as a bot's request in that seat carries it (arena/bots/human.py), so
 * nothing here works out what the seat may see. Every legal action of the decision
 * waiting is an element carrying `data-action` (the action as JSON); choosing one
 * posts it, and the referee checks it as it checks a bot's answer.
 *
 * Frames come by long polling: the page asks for the frame after the one it has, and
 * the server answers when there is one (or after a while with the same), so an open
 * request tells the server the page is still there.
 */
(function () {
  "use strict";

  var SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  var SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  var RANK_NAMES = {
    A: "ace", K: "king", Q: "queen", J: "jack", T: "10",
    9: "9", 8: "8", 7: "7", 6: "6", 5: "5", 4: "4", 3: "3", 2: "2",
  };
  var RANK_ORDER = "23456789TJQKA";
  var SUIT_ORDER = "SHCD";
  var KIND_WORDS = {
    contract: "choose a contract",
    expose: "choose the cards to expose",
    play: "play a card",
    pass: "pass",
    bid: "bid or pass",
    raise: "keep the bid or raise it",
  };
  var STRAIN_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades", SS: "sans souci", NT: "no trumps" };

  var body = document.body;
  var stateUrl = body.getAttribute("data-state-url");
  var actUrl = body.getAttribute("data-act-url");
  var frame = null;
  var version = 0;
  var received = 0; // when the frame came (for the clock)
  var sending = false;
  var stopped = false;
  var clockTimer = null;

  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardName(code) {
    return RANK_NAMES[code.charAt(0)] + " of " + SUIT_NAMES[code.charAt(1)];
  }

  function cardFace(node, code) {
    var suit = code.charAt(1);
    var rank = code.charAt(0) === "T" ? "10" : code.charAt(0);
    node.className = "card " + (suit === "D" || suit === "H" ? "red" : "black");
    node.setAttribute("data-card", code);
    node.appendChild(el("span", "rank", rank));
    node.appendChild(el("span", "suit", SUIT_SYMBOLS[suit] || suit));
    return node;
  }

  function cardElement(code) {
    var node = cardFace(el("span"), code);
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", cardName(code));
    return node;
  }

  function cardList(codes, label) {
    var box = el("span", "cards");
    if (label) box.setAttribute("aria-label", label);
    codes.forEach(function (code) {
      box.appendChild(cardElement(code));
    });
    return box;
  }

  function sortCards(codes) {
    return codes.slice().sort(function (a, b) {
      var suit = SUIT_ORDER.indexOf(a.charAt(1)) - SUIT_ORDER.indexOf(b.charAt(1));
      return suit || RANK_ORDER.indexOf(b.charAt(0)) - RANK_ORDER.indexOf(a.charAt(0));
    });
  }

  function seatName(seat) {
    var players = (frame && frame.players) || [];
    var name = seat >= 0 && seat < players.length ? players[seat] : "seat " + seat;
    return seat === frame.seat ? name + " (you)" : name;
  }

  function actionText(action) {
    if (action.type === "play") return "play " + cardName(action.card);
    if (action.type === "contract") return action.contract;
    if (action.type === "bid") return "bid " + bidText(action.bid);
    if (action.type === "raise") return "raise to " + bidText(action.bid);
    if (action.type === "keep") return "keep the bid";
    if (action.type === "expose") {
      return action.cards.length
        ? "expose " + action.cards.map(cardName).join(" and ")
        : "expose nothing";
    }
    return action.type;
  }

  function bidText(code) {
    var tricks = parseInt(code, 10);
    var strain = code.slice(String(tricks).length);
    return tricks + " " + (STRAIN_NAMES[strain] || strain);
  }

  /* ---- drawing ---------------------------------------------------------------------- */

  function render() {
    var view = frame.view || null;
    body.setAttribute("data-state", frame.closed && frame.state !== "over" ? "closed" : frame.state);
    body.setAttribute("data-decision", String(frame.decision || 0));
    body.setAttribute("data-kind", frame.kind || "");
    if (frame.view) body.setAttribute("data-step", frame.view.deal + "/" + frame.view.events.length);
    drawStatus(view);
    drawNotice();
    drawClock();
    if (!view) return;
    drawContract(view);
    drawTrick(view);
    drawRows(view);
    drawLastTrick(view);
    drawSeats(view);
    drawPlay(view);
    drawDealEnd();
    drawScores(view);
  }

  function drawStatus(view) {
    var status = $("status");
    if (frame.closed && frame.state !== "over") {
      status.textContent = "The table has closed.";
    } else if (frame.state === "over" && frame.result) {
      var best = frame.result.ranks.indexOf(1);
      status.textContent =
        "Game over. " + (frame.result.ranks[frame.seat] === 1 ? "You won" : seatName(best) + " won") +
        "; your total " + signed(frame.result.totals[frame.seat]) + ".";
    } else if (!view) {
      status.textContent = "Waiting for the game to start…";
    } else if (frame.decision) {
      status.textContent = "Your turn: " + (KIND_WORDS[frame.kind] || frame.kind) + ".";
    } else if (frame.to_move >= 0) {
      status.textContent =
        "Deal " + view.deal + ": waiting for " + seatName(frame.to_move) + " to " +
        (KIND_WORDS[frame.kind] || frame.kind) + ".";
    } else {
      status.textContent = "Waiting…";
    }
    body.classList.toggle("my-turn", !!frame.decision);
  }

  function drawNotice() {
    var notice = $("notice");
    notice.hidden = !frame.notice;
    notice.textContent = frame.notice || "";
  }

  function drawClock() {
    var clock = $("clock");
    if (clockTimer) clearInterval(clockTimer);
    clockTimer = null;
    if (!frame.decision || frame.time_left_ms === null || frame.time_left_ms === undefined) {
      clock.hidden = true;
      return;
    }
    function tick() {
      var left = Math.max(0, frame.time_left_ms - (Date.now() - received));
      clock.textContent = "Time left: " + Math.ceil(left / 1000) + " s";
      clock.classList.toggle("short", left < 5000);
    }
    clock.hidden = false;
    tick();
    clockTimer = setInterval(tick, 250);
  }

  function drawContract(view) {
    var box = $("contract");
    box.textContent = "";
    parts().contract(view, box);
  }

  function trixContract(view, box) {
    var line = el("p");
    line.appendChild(el("span", "", "Deal " + view.deal + " · King: " + seatName(view.king) + " · "));
    line.appendChild(el("strong", "", view.contract ? "contract: " + view.contract : "choosing the contract"));
    box.appendChild(line);
    if (view.contracts_left.length) {
      box.appendChild(el("p", "muted-felt", "Left in this kingdom: " + view.contracts_left.join(", ")));
    }
  }

  function trianonContract(view, box) {
    var line = el("p");
    line.appendChild(el("span", "", "Deal " + view.deal + " · dealer: " + seatName(view.dealer) + " · "));
    if (view.declarer >= 0 && view.bid) {
      line.appendChild(el("strong", "", seatName(view.declarer) + " plays " + bidText(view.bid)));
    } else if (view.declarer >= 0) {
      line.appendChild(el("strong", "", seatName(view.declarer) + " is declaring"));
    } else {
      line.appendChild(el("strong", "", biddingDone(view) ? "no bid: a Trianon round" : "bidding"));
    }
    box.appendChild(line);
    var bids = view.events.filter(function (e) {
      return e.type !== "play";
    });
    if (bids.length) {
      var list = el("p", "muted-felt", "Bids: ");
      list.textContent += bids
        .map(function (e) {
          return seatName(e.seat) + " " + (e.type === "pass" ? "passed" : actionText(e));
        })
        .join(" · ");
      box.appendChild(list);
    }
  }

  function trixRoles(view, seat) {
    return seat === view.king ? ["King"] : [];
  }

  function trianonRoles(view, seat) {
    var roles = [];
    if (seat === view.dealer) roles.push("dealer");
    if (seat === view.declarer) roles.push("declarer");
    return roles;
  }

  /* What differs between the games' views, by the game's registered name (a table,
   * as the strategies and the wire codec keep theirs): the contract or the bidding,
   * each seat's role, and whether the cards are laid out in rows (Trix's trix). */
  var GAMES = {
    trix: {
      contract: trixContract,
      roles: trixRoles,
      inRows: function (view) {
        return view.contract === "trix";
      },
    },
    trianon: {
      contract: trianonContract,
      roles: trianonRoles,
      inRows: function () {
        return false;
      },
    },
  };

  function parts() {
    return GAMES[frame.game];
  }

  function biddingDone(view) {
    return view.events.some(function (e) {
      return e.type === "play";
    });
  }

  function drawTrick(view) {
    var box = $("trick");
    box.textContent = "";
    var rows = parts().inRows(view);
    box.hidden = rows;
    if (rows) return;
    box.appendChild(el("h3", "", "Trick"));
    if (!view.trick.length) {
      box.appendChild(el("p", "muted-felt", "No card on the table yet."));
      return;
    }
    var list = el("ol", "played");
    view.trick.forEach(function (t) {
      var item = el("li");
      item.appendChild(el("span", "who", seatName(t.seat)));
      item.appendChild(cardElement(t.card));
      list.appendChild(item);
    });
    box.appendChild(list);
  }

  function drawRows(view) {
    var box = $("rows");
    box.textContent = "";
    box.hidden = !parts().inRows(view);
    if (box.hidden) return;
    box.appendChild(el("h3", "", "The rows"));
    "SHCD".split("").forEach(function (suit) {
      var laid = view.rows.filter(function (c) {
        return c.charAt(1) === suit;
      });
      laid.sort(function (a, b) {
        return RANK_ORDER.indexOf(a.charAt(0)) - RANK_ORDER.indexOf(b.charAt(0));
      });
      var row = el("div", "row");
      row.appendChild(el("span", "who", SUIT_NAMES[suit]));
      row.appendChild(laid.length ? cardList(laid, SUIT_NAMES[suit] + " laid") : el("span", "muted-felt", "none yet"));
      box.appendChild(row);
    });
    if (view.finished.length) {
      box.appendChild(
        el("p", "muted-felt", "Out: " + view.finished.map(seatName).join(", "))
      );
    }
  }

  /* The last trick taken: the last whole trick of this deal's plays, or of the deal
   * that just ended while the new one has none yet. */
  function lastTrick(view) {
    var size = frame.players.length;
    var plays = function (events) {
      return events.filter(function (e) {
        return e.type === "play";
      });
    };
    if (parts().inRows(view)) return null;
    var mine = plays(view.events);
    var whole = Math.floor(mine.length / size);
    if (whole > 0) {
      // whoever leads now took it: the first card of the trick, or the seat to play
      var taker = view.trick.length ? view.trick[0].seat : frame.kind === "play" ? frame.to_move : -1;
      return { cards: mine.slice((whole - 1) * size, whole * size), deal: view.deal, taker: taker };
    }
    var end = frame.deal_end;
    if (end && end.number === view.deal - 1 && !endedInRows(end)) {
      var before = plays(end.events);
      var done = Math.floor(before.length / size);
      if (done > 0) return { cards: before.slice((done - 1) * size, done * size), deal: end.number, taker: -1 };
    }
    return null;
  }

  function endedInRows(end) {
    return end.events.some(function (e) {
      return e.type === "contract" && e.contract === "trix";
    });
  }

  function drawLastTrick(view) {
    var box = $("last-trick");
    box.textContent = "";
    var last = lastTrick(view);
    box.hidden = !last;
    if (!last) return;
    var title = "Last trick" + (last.deal !== view.deal ? " of deal " + last.deal : "");
    if (last.taker >= 0) title += ", taken by " + seatName(last.taker);
    box.appendChild(el("h3", "", title));
    var list = el("ol", "played");
    last.cards.forEach(function (e) {
      var item = el("li");
      item.appendChild(el("span", "who", seatName(e.seat)));
      item.appendChild(cardElement(e.card));
      list.appendChild(item);
    });
    box.appendChild(list);
  }

  function drawSeats(view) {
    var list = $("seats");
    list.textContent = "";
    frame.players.forEach(function (name, seat) {
      var item = el("li", "player-line");
      if (seat === frame.to_move && frame.state !== "over") item.classList.add("turn");
      if (seat === frame.seat) item.classList.add("me");
      var head = el("div", "player-head");
      var who = el("bdi", "player-name", name);
      head.appendChild(who);
      head.appendChild(el("span", "player-number", "seat " + seat + (seat === frame.seat ? ", you" : "")));
      var roles = parts().roles(view, seat);
      if (seat === frame.to_move && frame.state !== "over") roles.push("to move");
      if (roles.length) head.appendChild(el("span", "role", roles.join(", ")));
      item.appendChild(head);
      var facts = el("div", "player-facts");
      facts.appendChild(el("span", "", "cards: " + view.cards_left[seat]));
      if (!parts().inRows(view)) {
        facts.appendChild(el("span", "", "tricks: " + view.tricks_won[seat]));
      }
      facts.appendChild(el("span", "", "total: " + signed(view.totals[seat])));
      item.appendChild(facts);
      if (view.exposed[seat] && view.exposed[seat].length) {
        var exposed = el("div", "exposed");
        exposed.appendChild(el("span", "", "exposed: "));
        exposed.appendChild(cardList(view.exposed[seat], "cards exposed by " + name));
        item.appendChild(exposed);
      }
      list.appendChild(item);
    });
  }

  function drawPlay(view) {
    var actions = $("actions");
    var hand = $("hand");
    actions.textContent = "";
    hand.textContent = "";
    var plays = {};
    (frame.legal || []).forEach(function (action) {
      if (action.type === "play") {
        plays[action.card] = action;
      } else {
        actions.appendChild(actionButton(action, actionText(action), "choice"));
      }
    });
    var cards = sortCards(view.hand);
    if (!cards.length) hand.appendChild(el("p", "muted", "No cards in your hand."));
    cards.forEach(function (code) {
      if (plays[code]) {
        // named by what it shows (Q), the suit's symbol hidden and its word said
        var button = actionButton(plays[code], "", "card");
        cardFace(button, code);
        button.classList.add("playable");
        button.querySelector(".suit").setAttribute("aria-hidden", "true");
        button.appendChild(el("span", "sr-only", " of " + SUIT_NAMES[code.charAt(1)]));
        button.setAttribute("title", "play " + cardName(code));
        hand.appendChild(button);
      } else {
        var card = cardElement(code);
        if (frame.decision) card.classList.add("unplayable");
        hand.appendChild(card);
      }
    });
  }

  function actionButton(action, text, className) {
    var button = el("button", className, text);
    button.type = "button";
    button.setAttribute("data-action", JSON.stringify(action));
    button.addEventListener("click", function () {
      choose(button);
    });
    return button;
  }

  function drawDealEnd() {
    var end = frame.deal_end;
    var box = $("deal-end");
    box.hidden = !end;
    if (!end) return;
    var content = $("deal-end-body");
    content.textContent = "";
    var what = "";
    end.events.forEach(function (e) {
      if (e.type === "contract") what = seatName(e.seat) + " chose " + e.contract;
      if (e.type === "bid" || e.type === "raise") what = seatName(e.seat) + " " + actionText(e);
    });
    content.appendChild(el("p", "", "Deal " + end.number + (what ? ": " + what : "") + "."));
    var list = el("ul", "deal-scores");
    (end.scores || []).forEach(function (score, seat) {
      list.appendChild(el("li", "", seatName(seat) + ": " + signed(score)));
    });
    content.appendChild(list);
  }

  function drawScores(view) {
    var box = $("scores");
    box.textContent = "";
    var table = el("table", "grid");
    var head = el("tr");
    head.appendChild(el("th", "", "deal"));
    frame.players.forEach(function (name, seat) {
      var th = el("th");
      th.setAttribute("scope", "col");
      th.appendChild(el("bdi", "", seatName(seat)));
      head.appendChild(th);
    });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    view.deal_scores.forEach(function (scores, index) {
      var row = el("tr");
      row.appendChild(el("th", "", String(index + 1)));
      scores.forEach(function (s) {
        row.appendChild(el("td", "num", signed(s)));
      });
      tbody.appendChild(row);
    });
    var totals = frame.result ? frame.result.totals : view.totals;
    var total = el("tr", "total");
    total.appendChild(el("th", "", frame.result ? "final" : "total"));
    totals.forEach(function (s, seat) {
      var text = signed(s) + (frame.result ? " (#" + frame.result.ranks[seat] + ")" : "");
      total.appendChild(el("td", "num", text));
    });
    tbody.appendChild(total);
    table.appendChild(tbody);
    box.appendChild(table);
  }

  function signed(n) {
    return n > 0 ? "+" + n : String(n);
  }

  /* ---- answering ---------------------------------------------------------------------- */

  function setBusy(busy) {
    sending = busy;
    var buttons = document.querySelectorAll("[data-action]");
    for (var i = 0; i < buttons.length; i++) buttons[i].disabled = busy;
  }

  function choose(button) {
    if (sending || !frame || !frame.decision) return;
    var answer = { decision: frame.decision, action: JSON.parse(button.getAttribute("data-action")) };
    setBusy(true);
    fetch(actUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(answer),
      cache: "no-store",
    })
      .then(function (response) {
        if (response.status === 409) {
          $("notice").hidden = false;
          $("notice").textContent = "Too late: that decision was already settled.";
        } else if (!response.ok) {
          throw new Error("answer refused: " + response.status);
        }
      })
      .catch(function () {
        setBusy(false);
        $("notice").hidden = false;
        $("notice").textContent = "The answer did not reach the table; try again.";
      });
  }

  /* ---- frames --------------------------------------------------------------------------- */

  function setLink(text, bad) {
    var status = $("link-status");
    status.textContent = text;
    status.classList.toggle("stale", !!bad);
  }

  function take(next) {
    var fresh = !frame || next.decision !== frame.decision;
    frame = next;
    version = next.version;
    received = Date.now();
    sending = false;
    render();
    if (fresh && frame.decision) {
      var first = document.querySelector("[data-action]");
      if (first) first.focus();
    }
  }

  function poll() {
    if (stopped) return;
    fetch(stateUrl + "?after=" + version, { cache: "no-store" })
      .then(function (response) {
        if (response.status === 204) return null;
        if (!response.ok) throw new Error("state " + response.status);
        return response.json();
      })
      .then(function (next) {
        setLink("connected");
        if (next && next.version > version) take(next);
        if (next && next.closed) {
          stopped = true;
          setLink("table closed", true);
          return;
        }
        poll();
      })
      .catch(function () {
        setLink("reconnecting…", true);
        setTimeout(poll, 1000);
      });
  }

  poll();
})();
