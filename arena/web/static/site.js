/* The site's behaviour without a framework: sortable tables, fault filters, and live
   pages that poll the server's version and swap in the new page when it changes (on a
   page with a form, only its parts marked data-live-part, so that nothing typed is lost). */
(function () {
  "use strict";
  var sorts = {};  // table id -> [column, direction]: kept across live swaps

  function value(cell) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null) raw = cell.textContent.trim();
    if (raw === "" || raw === "None") return null;
    var n = Number(raw);
    return isNaN(n) ? raw.toLowerCase() : n;
  }

  /* What the visitor chose in a page's forms (by form id, the controls in order), so
     that a live swap of the whole page gives their choices back. */
  function formChoices(root) {
    var kept = {};
    Array.prototype.forEach.call(root.querySelectorAll("form[id]"), function (form) {
      kept[form.id] = Array.prototype.map.call(
        form.querySelectorAll("select, input:not([type=hidden]), textarea"),
        function (c) { return c.type === "checkbox" || c.type === "radio" ? c.checked : c.value; });
    });
    return kept;
  }

  function restoreChoices(root, kept) {
    Object.keys(kept).forEach(function (id) {
      var form = document.getElementById(id);
      if (!form || !root.contains(form)) return;
      var controls = form.querySelectorAll("select, input:not([type=hidden]), textarea");
      if (controls.length !== kept[id].length) return;  // a different form now: leave it
      Array.prototype.forEach.call(controls, function (c, i) {
        if (c.type === "checkbox" || c.type === "radio") c.checked = kept[id][i];
        else if (c.type !== "file") c.value = kept[id][i];
      });
    });
  }

  function sortTable(table, col, dir) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a.cells[col]), y = value(b.cells[col]);
      if (x === y) return 0;
      if (x === null) return 1;  // empty cells last either way
      if (y === null) return -1;
      return (x < y ? -1 : 1) * dir;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (i === col) th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      else th.removeAttribute("aria-sort");
    });
    sorts[table.id] = [col, dir];
  }

  function setUpTables(root) {
    Array.prototype.forEach.call(root.querySelectorAll("table.sortable"), function (table) {
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
        function go() {
          var now = sorts[table.id];
          var dir = now && now[0] === col ? -now[1] : 1;
          sortTable(table, col, dir);
        }
        th.addEventListener("click", go);
        th.addEventListener("keydown", function (e) { if (e.key === "Enter") go(); });
      });
      if (sorts[table.id]) sortTable(table, sorts[table.id][0], sorts[table.id][1]);
    });
  }

  function setUpFilters(root) {
    var form = root.querySelector("#fault-filters");
    if (!form) return;
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    var controls = form.querySelectorAll("[data-filter]");
    function apply() {
      var want = {};
      Array.prototype.forEach.call(controls, function (c) { want[c.getAttribute("data-filter")] = c.value; });
      var shown = 0;
      Array.prototype.forEach.call(root.querySelectorAll("#faults tbody tr"), function (tr) {
        var ok = (!want.entrant || tr.getAttribute("data-entrant") === want.entrant) &&
          (!want.kind || tr.getAttribute("data-kind") === want.kind) &&
          (!want.text || tr.textContent.toLowerCase().indexOf(want.text.toLowerCase()) >= 0);
        tr.hidden = !ok;
        if (ok) shown += 1;
      });
      form.querySelector("#fault-count").textContent = shown + " faults";
    }
    Array.prototype.forEach.call(controls, function (c) { c.addEventListener("input", apply); });
    apply();
  }

  function setUp(root) { setUpTables(root); setUpFilters(root); }

  function live() {
    var url = document.body.getAttribute("data-version-url");
    if (!url || document.body.hasAttribute("data-not-live")) return;
    var seen = null, status = document.getElementById("live-status");
    function poll() {
      fetch(url, { cache: "no-store" }).then(function (r) { return r.text(); }).then(function (text) {
        if (status) status.classList.remove("stale");
        if (seen !== null && text !== seen) refresh();
        seen = text;
      }).catch(function () { if (status) status.classList.add("stale"); })
        .then(function () { setTimeout(poll, 1000); });
    }
    poll();
  }

  function refresh() {
    if (document.body.hasAttribute("data-live-game")) {  // the viewer loads its deals anew
      var viewer = window.ArenaViewer;
      if (viewer && viewer.atEnd()) location.replace(location.pathname);  // follow the game
      else location.reload();  // stay where the watcher stepped back to
      return;
    }
    fetch(location.pathname + location.search, { cache: "no-store" }).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (html === null) return;
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("content");
      var main = document.getElementById("content");
      if (!fresh || !main) return;
      var parts = main.querySelectorAll("[data-live-part]");
      if (parts.length) {  // a page with a form: only its live parts are swapped
        Array.prototype.forEach.call(parts, function (part) {
          var now = fresh.querySelector("#" + part.id);
          if (now) part.innerHTML = now.innerHTML;
        });
        setUp(main);
        document.dispatchEvent(new CustomEvent("arena:refreshed"));
        return;
      }
      var filters = {};
      Array.prototype.forEach.call(main.querySelectorAll("[data-filter]"), function (c) {
        filters[c.getAttribute("data-filter")] = c.value;
      });
      var chosen = formChoices(main);
      main.innerHTML = fresh.innerHTML;
      Array.prototype.forEach.call(main.querySelectorAll("[data-filter]"), function (c) {
        var old = filters[c.getAttribute("data-filter")];
        if (old !== undefined) c.value = old;
      });
      restoreChoices(main, chosen);
      setUp(main);
      document.dispatchEvent(new CustomEvent("arena:refreshed"));
    });
  }

  window.ArenaSite = { sortTable: sortTable, refresh: refresh };
  document.addEventListener("DOMContentLoaded", function () { setUp(document); live(); });
})();
