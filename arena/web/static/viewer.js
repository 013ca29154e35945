/* The game viewer of the league site: a replay deal by deal, step by step.
 *
 * Everything shown of a seat comes from that seat's view at that step, as the engine's
 * observe() built it (arena/play/replay_frames.py): nothing here works out what a seat
 * could see. The page holds the game's outline (#game-outline) and the URL of each
 * deal's data (#deal-urls). The server answers a deal as JSON, fetched from the same
 * origin (a page of another origin may not read it); the static report's data is one
 * script a game, `ArenaViewer.loadPacked(ID, "...")`, inserted on demand, which works
 * from file:// where fetch() does not: base85 of the gzip of the JSON list of the
 * game's deal documents, their frames as columns (arena/web/viewer_data.py game_pack),
 * unpacked here with the browser's DecompressionStream, each deal then loaded as a
 * fetched one is.
 */
(function () {
  "use strict";

  var SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  var RED_SUITS = { D: true, H: true };
  var STEP_MS = 700;

  /* The views of an arena-frames/1 document by step then observer, as
   * replay_frames.expand gives them in Python: generic, no game in it. */
  function expand(doc) {
    var count = doc.observers.length;
    var prefix = doc.prefix || {};
    var keys = Object.keys(prefix);
    var current = [];
    var out = [];
    for (var i = 0; i < count; i++) current.push({});
    doc.frames.forEach(function (frame) {
      var own = frame.v || {};
      var views = [];
      for (var i = 0; i < count; i++) {
        current[i] = Object.assign({}, current[i], frame.c || {}, own[String(i)] || {});
        var view = Object.assign({}, current[i]);
        keys.forEach(function (key) {
          var list = prefix[key][i];
          if (typeof list === "number") list = prefix[key][list];
          view[key] = list.slice(0, current[i][key]);
        });
        views.push(view);
      }
      out.push(views);
    });
    return out;
  }

  var state = {
    outline: null,
    urls: [],
    deals: {}, // deal number -> {doc, views}
    deal: 1,
    step: 0,
    seat: "all", // "all" or a seat number: whose view is shown
    onlySeat: null, // the seat whose view alone the page holds (an author's test match)
    timer: null,
    waiting: null, // the deal whose data is being loaded
    scripts: {}, // the data scripts inserted (the report's one per game), by URL
    event: null, // a replay event asked for by the address, until its deal is loaded
  };

  function $(id) {
    return document.getElementById(id);
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cardElement(code) {
    var suit = code.charAt(1);
    var rank = code.charAt(0) === "T" ? "10" : code.charAt(0);
    var node = el("span", "card " + (RED_SUITS[suit] ? "red" : "black"));
    node.setAttribute("data-card", code);
    node.setAttribute("title", code);
    node.appendChild(el("span", "rank", rank));
    node.appendChild(el("span", "suit", SUIT_SYMBOLS[suit] || suit));
    return node;
  }

  function backElement() {
    return el("span", "card back");
  }

  function seatName(seat) {
    var players = state.outline.players;
    return seat >= 0 && seat < players.length ? players[seat] : "";
  }

  function actionText(action) {
    if (!action) return "";
    if (action.type === "play") return action.card;
    if (action.type === "contract") return action.contract;
    if (action.type === "bid" || action.type === "raise") return action.type + " " + action.bid;
    if (action.type === "expose") {
      return "expose " + (action.cards.length ? action.cards.join(" ") : "nothing");
    }
    return action.type;
  }

  /* ---- the current frame ---------------------------------------------------------- */

  function current() {
    var data = state.deals[state.deal];
    if (!data) return null;
    var isPublic = data.doc.seats_shown === "public";
    var viewer = state.seat === "all" || isPublic ? -1 : state.seat;
    if (state.onlySeat !== null) viewer = state.onlySeat;  // one seat's view: nobody else's
    var views = data.views[state.step];
    return {
      doc: data.doc,
      views: views,
      frame: data.doc.frames[state.step],
      previous: state.step > 0 ? data.views[state.step - 1] : null,
      previousFrame: state.step > 0 ? data.doc.frames[state.step - 1] : null,
      isPublic: isPublic,
      viewer: viewer,
      // the public record: every observer's is the same; a seat's own when shown
      table: viewer >= 0 ? views[data.doc.observers.indexOf(viewer)] : views[0],
    };
  }

  function viewOf(f, seat) {
    var index = f.doc.observers.indexOf(seat);
    return index >= 0 ? f.views[index] : null;
  }

  /* ---- drawing -------------------------------------------------------------------- */

  function render() {
    var f = current();
    if (!f) return;
    drawSeats(f);
    drawCenter(f);
    drawDecision(f);
    drawScores(f);
    drawLabel(f);
    writeHash();
  }

  function seatPosition(seat, seats) {
    var base = state.seat === "all" ? 0 : state.seat;
    var turn = (seat - base + seats) % seats;
    var places = seats === 3 ? ["bottom", "left", "right"] : ["bottom", "left", "top", "right"];
    return places[turn];
  }

  function drawSeats(f) {
    var seats = state.outline.seats;
    var table = f.table;
    for (var seat = 0; seat < seats; seat++) {
      var box = $("seat-" + seat);
      box.setAttribute("data-position", seatPosition(seat, seats));
      box.classList.toggle("turn", table.to_move === seat);
      box.classList.toggle("viewer", f.viewer === seat);
      drawRoles(box.querySelector(".roles"), table, seat);
      drawHand(box.querySelector(".hand"), f, seat);
      drawExposed(box.querySelector(".exposed"), table, seat);
      var left = table.cards_left[seat];
      box.querySelector(".count").textContent = left + (left === 1 ? " card" : " cards");
      var tricks = table.tricks_won ? table.tricks_won[seat] : 0;
      box.querySelector(".tricks").textContent = tricks ? tricks + (tricks > 1 ? " tricks" : " trick") : "";
    }
  }

  function drawRoles(node, table, seat) {
    node.textContent = "";
    var roles = [];
    if (table.king === seat) roles.push("King");
    if (table.dealer === seat) roles.push("Dealer");
    if (table.declarer === seat && table.declarer >= 0) roles.push("Declarer");
    if (table.trick && table.trick.length && table.trick[0].seat === seat) roles.push("Leads");
    if (table.to_move === seat) roles.push("To move");
    if (table.finished && table.finished.indexOf(seat) >= 0) {
      roles.push("Out " + (table.finished.indexOf(seat) + 1));
    }
    roles.forEach(function (role) {
      node.appendChild(el("span", "role role-" + role.toLowerCase().replace(/ .*/, ""), role));
    });
  }

  function drawHand(node, f, seat) {
    node.textContent = "";
    var own = f.viewer === -1 || f.viewer === seat ? viewOf(f, seat) : null;
    if (own && !f.isPublic) {
      var legal = {};
      var decides = own.to_move === seat;
      (own.legal || []).forEach(function (a) {
        if (a.card) legal[a.card] = true;
      });
      var answer = decides && f.frame.answer ? f.frame.answer.card : null;
      own.hand.forEach(function (code) {
        var card = cardElement(code);
        if (decides && legal[code]) card.classList.add("legal");
        if (answer === code) card.classList.add("answer");
        node.appendChild(card);
      });
      node.setAttribute("data-face", "up");
    } else {
      var count = f.table.cards_left[seat];
      for (var i = 0; i < count; i++) node.appendChild(backElement());
      node.setAttribute("data-face", "down");
    }
  }

  function drawExposed(node, table, seat) {
    node.textContent = "";
    var cards = table.exposed ? table.exposed[seat] : [];
    if (!cards || !cards.length) return;
    node.appendChild(el("span", "label", "exposed"));
    cards.forEach(function (code) {
      node.appendChild(cardElement(code));
    });
  }

  function drawCenter(f) {
    var table = f.table;
    $("contract").textContent = contractText(table);
    var trick = $("trick");
    trick.textContent = "";
    (table.trick || []).forEach(function (played) {
      var slot = el("span", "played");
      slot.setAttribute("data-seat", played.seat);
      slot.setAttribute("data-position", seatPosition(played.seat, state.outline.seats));
      slot.appendChild(cardElement(played.card));
      slot.appendChild(el("bdi", "who", seatName(played.seat)));
      trick.appendChild(slot);
    });
    drawRows(table);
    drawLastTrick(f);
    drawDealEnd(f);
  }

  /* The deal's heading, from the fields the game's view holds (the viewer knows no
   * game's name): a view naming a King (Trix) says the contract and the King; any
   * other says the dealer, the contract and its declarer, and the trump it has. */
  function contractText(table) {
    if (table.king !== undefined) {
      var contract = table.contract || "King " + seatName(table.king) + " is choosing";
      return "Deal " + table.deal + ": " + contract + " \u00b7 King: " + seatName(table.king);
    }
    var parts = ["Deal " + table.deal + ", dealer " + seatName(table.dealer)];
    if (table.bid) parts.push("contract " + table.bid + " by " + seatName(table.declarer));
    else if (table.kind === "bid" || table.kind === "raise") parts.push("bidding");
    if (table.trump) parts.push("trump " + SUIT_SYMBOLS[table.trump]);
    return parts.join(" \u00b7 ");
  }

  function drawRows(table) {
    var rows = $("rows");
    rows.textContent = "";
    var cards = table.rows || [];
    rows.hidden = !(table.contract === "trix"); // the Trix contract (T-6) lays cards out in rows
    "SHDC".split("").forEach(function (suit) {
      var row = el("div", "row");
      row.setAttribute("data-suit", suit);
      cards.forEach(function (code) {
        if (code.charAt(1) === suit) row.appendChild(cardElement(code));
      });
      rows.appendChild(row);
    });
  }

  /* The trick just completed: the trick of the step before and the card that ended it
   * (the view's own trick is empty again once a trick is complete). */
  function drawLastTrick(f) {
    var node = $("last-trick");
    node.textContent = "";
    var before = f.previous ? f.previous[0].trick || [] : [];
    var answer = f.previousFrame ? f.previousFrame.answer : null;
    var full = before.length === state.outline.seats - 1 && answer && answer.type === "play";
    node.hidden = !(full && (f.table.trick || []).length === 0);
    if (node.hidden) return;
    node.appendChild(el("span", "label", "last trick"));
    before.concat([{ seat: answer.seat, card: answer.card }]).forEach(function (played) {
      node.appendChild(cardElement(played.card));
    });
  }

  function drawDealEnd(f) {
    var node = $("deal-end");
    node.textContent = "";
    node.hidden = !f.frame.end;
    if (!f.frame.end) return;
    node.appendChild(el("strong", "", "Deal " + f.doc.deal + " over"));
    (f.doc.scores || []).forEach(function (score, seat) {
      node.appendChild(el("bdi", "score", seatName(seat) + " " + signed(score)));
    });
  }

  function signed(n) {
    return n > 0 ? "+" + n : String(n);
  }

  function drawDecision(f) {
    var table = f.table;
    var mover = table.to_move;
    var toMove = $("to-move");
    toMove.setAttribute("data-seat", mover);
    toMove.textContent =
      mover >= 0 ? seatName(mover) + " (seat " + mover + ") to " + table.kind : "nobody to move";
    var shown = mover >= 0 && (f.viewer === -1 || f.viewer === mover);
    var legal = $("legal");
    legal.textContent = "";
    var mine = shown && !f.isPublic ? viewOf(f, mover) : null;
    (mine ? mine.legal : []).forEach(function (action) {
      var item = el("li", "", actionText(action));
      item.setAttribute("data-action", JSON.stringify(action));
      if (f.frame.answer && actionText(f.frame.answer) === actionText(action)) {
        item.classList.add("chosen");
      }
      legal.appendChild(item);
    });
    $("legal-box").hidden = !mine;
    var answer = $("answer");
    answer.textContent = "";
    answer.removeAttribute("data-auto");
    if (shown && f.frame.answer) {
      answer.appendChild(el("span", "move", actionText(f.frame.answer)));
      if (f.frame.auto) {
        answer.setAttribute("data-auto", f.frame.auto);
        answer.appendChild(faultBadge(f.frame));
      }
    }
    $("answer-box").hidden = !(shown && f.frame.answer);
  }

  function faultBadge(frame) {
    var badge = el("span", "fault-badge");
    var fault = frame.fault;
    badge.setAttribute("data-kind", frame.auto);
    badge.appendChild(el("strong", "", fault ? fault.kind : frame.auto));
    var why = fault
      ? fault.detail || ""
      : "the referee plays this bot's moves (too many faults in this game)";
    if (why) badge.appendChild(el("span", "detail", why));
    badge.setAttribute("title", "fallback move: " + why);
    return badge;
  }

  function drawScores(f) {
    var table = f.table;
    var body = $("scores").querySelector("tbody");
    body.textContent = "";
    (table.deal_scores || []).forEach(function (scores, index) {
      body.appendChild(scoreRow("deal-row", "Deal " + (index + 1), scores));
    });
    body.appendChild(scoreRow("totals", "Total", table.totals));
    if (table.tricks_won && table.to_move >= 0) {
      body.appendChild(scoreRow("tricks", "Tricks now", table.tricks_won));
    }
  }

  function scoreRow(className, label, values) {
    var row = el("tr", className);
    row.appendChild(el("th", "", label));
    values.forEach(function (value, seat) {
      var cell = el("td", "", String(value));
      cell.setAttribute("data-seat", seat);
      row.appendChild(cell);
    });
    return row;
  }

  function drawLabel(f) {
    var label = $("step-label");
    var last = f.doc.frames.length - 1;
    label.setAttribute("data-deal", state.deal);
    label.setAttribute("data-step", state.step);
    label.textContent =
      "Deal " + state.deal + "/" + state.outline.deals.length + " \u00b7 step " + state.step +
      "/" + last + (f.frame.end ? " (end)" : "");
    $("deal-select").value = String(state.deal);
    $("prev").disabled = state.deal === 1 && state.step === 0;
    $("next").disabled = state.deal === state.outline.deals.length && state.step === last;
  }

  /* ---- moving --------------------------------------------------------------------- */

  function lastStep(deal) {
    return state.outline.deals[deal - 1].steps - 1;
  }

  function go(deal, step) {
    var deals = state.outline.deals.length;
    deal = Math.max(1, Math.min(deals, deal));
    step = Math.max(0, Math.min(lastStep(deal), step));
    state.deal = deal;
    state.step = step;
    if (state.deals[deal]) {
      state.waiting = null;
      if (state.event !== null && state.event !== undefined) {
        step = Math.min(lastStep(deal), stepOfEvent(deal, state.event));
        state.step = step;
        state.event = null;
      }
      render();
    } else {
      fetchDeal(deal);
    }
  }

  function stepBy(delta) {
    var step = state.step + delta;
    if (step > lastStep(state.deal) && state.deal < state.outline.deals.length) {
      go(state.deal + 1, 0);
    } else if (step < 0 && state.deal > 1) {
      go(state.deal - 1, lastStep(state.deal - 1));
    } else {
      go(state.deal, step);
    }
  }

  function dealBy(delta) {
    go(state.deal + delta, 0);
  }

  function fetchDeal(deal) {
    state.waiting = deal;
    $("status").textContent = "loading deal " + deal + "\u2026";
    var url = state.urls[deal - 1];
    function failed() {
      $("status").textContent = "deal " + deal + " could not be loaded (" + url + ")";
    }
    if (/\.json$/.test(url)) {
      fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
        if (!r.ok) throw new Error(r.status);
        return r.json();
      }).then(function (doc) { load(deal, doc); }, failed);
      return;
    }
    if (state.scripts[url]) return; // asked already: the game's one script holds every deal
    state.scripts[url] = true;
    var script = document.createElement("script");
    script.src = url;
    script.onerror = function () {
      delete state.scripts[url];
      failed();
    };
    document.head.appendChild(script);
  }

  var B85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

  /* RFC 1924 base85 (Python's base64.b85encode): 5 characters for 4 bytes; a last group
   * of n + 1 characters is n bytes, read as if padded with the last digit. */
  function b85decode(text) {
    var digit = {};
    for (var d = 0; d < 85; d++) digit[B85.charCodeAt(d)] = d;
    var rest = text.length % 5;
    var bytes = new Uint8Array(Math.floor(text.length / 5) * 4 + (rest ? rest - 1 : 0));
    var at = 0;
    for (var i = 0; i < text.length; i += 5) {
      var value = 0;
      for (var j = i; j < i + 5; j++) {
        value = value * 85 + (j < text.length ? digit[text.charCodeAt(j)] : 84);
      }
      var group = [value / 16777216, value / 65536, value / 256, value];
      var take = i + 5 <= text.length ? 4 : rest - 1;
      for (var k = 0; k < take; k++) bytes[at++] = Math.floor(group[k]) % 256;
    }
    return bytes;
  }

  /* The report's packed game: base85 of gzip of [doc, doc, ...], one per deal. */
  function unpack(packed) {
    var bytes = b85decode(packed);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).json();
  }

  /* A packed deal's frames are columns, one list per key (null: not in that frame); an
   * answer that is a number is the first observer's event list's item at that index. */
  function rows(columns, prefix) {
    var events = prefix && prefix.events ? prefix.events[0] : [];
    var keys = Object.keys(columns);
    var count = keys.length ? columns[keys[0]].length : 0;
    var frames = [];
    for (var i = 0; i < count; i++) {
      var frame = {};
      keys.forEach(function (key) {
        if (columns[key][i] !== null) frame[key] = columns[key][i];
      });
      if (typeof frame.answer === "number") frame.answer = events[frame.answer];
      frames.push(frame);
    }
    return frames;
  }

  function loadPacked(gameId, packed) {
    unpack(packed).then(
      function (docs) {
        docs.forEach(function (doc) {
          load(doc.deal, Object.assign({}, doc, { frames: rows(doc.frames, doc.prefix) }));
        });
      },
      function () {
        $("status").textContent = "game " + gameId + "'s deals could not be unpacked";
      }
    );
  }

  function load(deal, doc) {
    state.deals[deal] = { doc: doc, views: expand(doc) };
    if (state.waiting === deal) {
      state.waiting = null;
      $("status").textContent = "";
      go(state.deal, state.step);
    }
  }

  function togglePlay() {
    if (state.timer) {
      clearInterval(state.timer);
      state.timer = null;
    } else {
      state.timer = setInterval(function () {
        var atEnd =
          state.deal === state.outline.deals.length && state.step === lastStep(state.deal);
        if (atEnd) togglePlay();
        else if (!state.waiting) stepBy(1);
      }, STEP_MS);
    }
    $("play").textContent = state.timer ? "Pause" : "Play";
    $("play").setAttribute("aria-pressed", state.timer ? "true" : "false");
  }

  /* ---- the address: #deal=3&step=17&seat=2 ----------------------------------------- */

  function readHash() {
    var params = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv[0]) params[kv[0]] = decodeURIComponent(kv[1] || "");
    });
    var seat = params.seat === undefined || params.seat === "all" ? "all" : Number(params.seat);
    setSeat(isNaN(seat) || seat < 0 || seat >= state.outline.seats ? "all" : seat);
    var deal = parseInt(params.deal, 10);
    var step = parseInt(params.step, 10);
    var event = parseInt(params.event, 10);
    // #deal=D&event=E (a fault's replay event): its step, once the deal is loaded
    state.event = isNaN(event) || !isNaN(step) ? null : event;
    if (isNaN(deal) && state.outline.totals === null) {
      // a game being played, opened without a place: its latest step
      var last = state.outline.deals.length;
      go(last, lastStep(last));
      return;
    }
    go(isNaN(deal) ? 1 : deal, isNaN(step) ? 0 : step);
  }

  /* Whether the viewer shows the game's latest step (a live page then follows it). */
  function atEnd() {
    var last = state.outline.deals.length;
    return state.deal === last && state.step === lastStep(last);
  }

  /* The step at which the deal's replay event `event` is decided: step k decides the
   * event after the ones step 0 already holds (a contract nobody chose is one). */
  function stepOfEvent(deal, event) {
    var first = state.deals[deal].views[0][0].events.length;
    return Math.max(0, event - first);
  }

  function writeHash() {
    var hash = "#deal=" + state.deal + "&step=" + state.step;
    if (state.seat !== "all") hash += "&seat=" + state.seat;
    if (location.hash === hash) return;
    if (history.replaceState) history.replaceState(null, "", hash);
    else location.hash = hash;
  }

  function setSeat(seat) {
    if (state.onlySeat !== null) seat = state.onlySeat;  // the page holds that seat's view alone
    state.seat = seat;
    $("seat-view").value = String(seat);
  }

  /* ---- setting up ----------------------------------------------------------------- */

  function buildControls() {
    var select = $("deal-select");
    var marked = {};
    (state.outline.fallbacks || []).forEach(function (mark) {
      marked[mark.deal] = true;
    });
    state.outline.deals.forEach(function (deal) {
      var text = "Deal " + deal.number + (deal.label ? " \u00b7 " + deal.label : "");
      var option = el("option", "", text + (marked[deal.number] ? " \u26a0" : ""));
      option.value = String(deal.number);
      select.appendChild(option);
    });
    select.addEventListener("change", function () {
      go(Number(select.value), 0);
      select.blur(); // the arrow keys step the viewer again, not the menu
    });
    var seats = $("seat-view");
    var all = el("option", "", state.isPublic ? "Spectator" : "All hands");
    all.value = "all";
    if (state.onlySeat === null) seats.appendChild(all);
    state.outline.players.forEach(function (name, seat) {
      if (state.onlySeat !== null && seat !== state.onlySeat) return;
      var option = el("option", "", "Seat " + seat + ": " + name);
      option.setAttribute("dir", "auto");
      option.value = String(seat);
      seats.appendChild(option);
    });
    // a game being played: no seat's view is shown; one seat's view: only that one
    seats.disabled = state.isPublic || state.onlySeat !== null;
    seats.addEventListener("change", function () {
      setSeat(seats.value === "all" ? "all" : Number(seats.value));
      render();
    });
    $("prev").addEventListener("click", function () { stepBy(-1); });
    $("next").addEventListener("click", function () { stepBy(1); });
    $("prev-deal").addEventListener("click", function () { dealBy(-1); });
    $("next-deal").addEventListener("click", function () { dealBy(1); });
    $("play").addEventListener("click", togglePlay);
    document.addEventListener("keydown", onKey);
    window.addEventListener("hashchange", readHash);
  }

  function buildSeats() {
    var table = $("table");
    state.outline.players.forEach(function (name, seat) {
      var box = el("div", "seat");
      box.id = "seat-" + seat;
      box.setAttribute("data-seat", seat);
      var head = el("div", "seat-head");
      var shown = el("bdi", "name", name);
      shown.setAttribute("title", name);
      head.appendChild(shown);
      head.appendChild(el("span", "seat-number", "seat " + seat));
      head.appendChild(el("span", "roles"));
      box.appendChild(head);
      var hand = el("div", "hand");
      hand.setAttribute("data-seat", seat);
      box.appendChild(hand);
      var foot = el("div", "seat-foot");
      foot.appendChild(el("span", "count"));
      foot.appendChild(el("span", "tricks"));
      foot.appendChild(el("span", "exposed"));
      box.appendChild(foot);
      table.appendChild(box);
    });
    table.setAttribute("data-seats", state.outline.seats);
    var head = $("scores").querySelector("thead tr");
    head.appendChild(el("th", "", ""));
    state.outline.players.forEach(function (name, seat) {
      var cell = el("th", "");
      cell.appendChild(el("bdi", "", name));
      cell.setAttribute("title", name); // the full name where the column cuts it short
      cell.setAttribute("scope", "col");
      cell.setAttribute("data-seat", seat);
      head.appendChild(cell);
    });
  }

  function onKey(event) {
    var tag = event.target && event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var actions = {
      ArrowRight: function () { stepBy(1); },
      ArrowLeft: function () { stepBy(-1); },
      ArrowDown: function () { dealBy(1); },
      ArrowUp: function () { dealBy(-1); },
      " ": togglePlay,
    };
    var action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }

  function start() {
    var outline = $("game-outline");
    if (!outline) return; // not the game page
    state.outline = JSON.parse(outline.textContent);
    state.urls = JSON.parse($("deal-urls").textContent);
    state.isPublic = state.outline.seats_shown === "public";
    state.onlySeat = typeof state.outline.seats_shown === "number" ? state.outline.seats_shown : null;
    buildSeats();
    buildControls();
    readHash();
  }

  window.ArenaViewer = {
    expand: expand,
    load: load,
    loadPacked: loadPacked,
    unpack: unpack,
    go: go,
    state: state,
    atEnd: atEnd,
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
