// mcountsim timeline: step through one schedule. No network, no libraries.
// When it has run, <body> carries data-status="ok" (or "error: ...") and
// data-current-step, so that headless tests can check the page.
(function () {
  "use strict";
  var body = document.body;
  function fail(msg) { body.setAttribute("data-status", "error: " + msg); }
  window.addEventListener("error", function (ev) { fail(String(ev.message || ev)); });

  try {
    var data = JSON.parse(document.getElementById("mcs-data").textContent);
    var steps = data.steps || [];
    var rowsByStep = {};
    var rows = document.querySelectorAll("#timeline tbody tr");
    for (var i = 0; i < rows.length; i++) {
      var s = rows[i].getAttribute("data-step");
      (rowsByStep[s] = rowsByStep[s] || []).push(rows[i]);
    }
    var $ = function (id) { return document.getElementById(id); };
    var slider = $("slider"), position = $("position");
    slider.max = String(Math.max(steps.length - 1, 0));
    var cur = -1, timer = null, clicks = 0;
    var hazardSet = {};
    (data.hazardSteps || []).forEach(function (h) { hazardSet[h] = true; });

    function esc(s) {
      return String(s == null ? "" : s).replace(/[&<>"]/g, function (c) {
        return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c];
      });
    }
    function fillTable(id, rowsHTML) { $(id).querySelector("tbody").innerHTML = rowsHTML.join(""); }

    function render(state) {
      $("state-summary").textContent = state.summary;
      fillTable("state-cpus", state.cpus.map(function (t, c) {
        return "<tr><td>cpu" + c + "</td><td>" + esc(t) + "</td></tr>";
      }));
      fillTable("state-tasks", state.tasks.map(function (t) {
        return "<tr><td>" + esc(t.name) + "</td><td><span class=\"st st-" + esc(t.state) + "\">" + esc(t.state) +
          "</span> " + esc(t.where) + "</td></tr>";
      }));
      fillTable("state-sites", (state.sites || []).map(function (w) {
        return "<tr class=\"" + (w.changed ? "changed" : "") + "\"><td>" + esc(w.where) + "</td><td><code>" + esc(w.bytes) +
          "</code><br><small>" + esc(w.writer) + "</small></td></tr>";
      }));
    }

    // The stack panel: the words the selected task stored, as of the
    // current step, highest address first, and the slots hazards name.
    var stackTask = data.stackTask || 0;
    var stackSel = $("stack-task");
    stackSel.value = String(stackTask);
    stackSel.addEventListener("change", function () { stackTask = Number(stackSel.value); renderStack(); });
    function renderStack() {
      var step = steps[cur], slots = {}, order = [];
      (data.stack || []).forEach(function (w) {
        if (w.task !== stackTask || w.step > step) { return; }
        if (!slots[w.addr]) { order.push(w.addr); }
        slots[w.addr] = w;
      });
      var expected = {};
      (data.expected || []).forEach(function (x) {
        if (x.task === stackTask && x.step <= step) { expected[x.addr] = x; }
      });
      Object.keys(expected).forEach(function (a) { if (!slots[a]) { order.push(a); } });
      order.sort(function (a, b) { return parseInt(b, 16) - parseInt(a, 16); });
      $("stack").setAttribute("data-task", stackTask);
      $("stack").setAttribute("data-slots", String(order.length));
      fillTable("stack-slots", order.map(function (a) {
        var w = slots[a], x = expected[a], cls = [];
        if (x) { cls.push("expected"); }
        if (w && w.step === step) { cls.push("new"); }
        var written = w ? esc(w.source.replace(/^written /, "")) + (w.insn ? " by <code>" + esc(w.insn) + "</code>" : "") +
          " <a class=\"goto\" href=\"#step=" + w.step + "\" data-goto=\"" + w.step + "\">step " + w.step + "</a>" : "never written";
        if (x) { written += "<br><span class=\"why\">⚠ " + esc(x.note) + "</span>"; }
        return "<tr class=\"" + cls.join(" ") + "\" data-addr=\"" + esc(a) + "\"><td><code>" + esc(a) + "</code></td><td><code>" +
          (w ? esc(w.value) : "–") + "</code></td><td>" + written + "</td></tr>";
      }));
      $("stack-slots").querySelectorAll("a.goto").forEach(function (l) {
        l.addEventListener("click", function (ev) { ev.preventDefault(); stop(); go(indexOf(Number(l.getAttribute("data-goto")))); });
      });
    }

    // inView reports whether el's box lies inside the window.
    function inView(el) {
      if (!el) { return false; }
      var r = el.getBoundingClientRect();
      return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
    }
    // measure records, for tests, what the reader sees after scrolling.
    function measure() {
      var row = document.querySelector("#timeline tr.current");
      var hz = document.querySelector("#timeline tr.first-hazard");
      var x = document.querySelector("#stack-slots tr.expected");
      body.setAttribute("data-viewport", window.innerWidth + "x" + window.innerHeight);
      body.setAttribute("data-current-in-view", String(inView(row)));
      body.setAttribute("data-hazard-in-view", String(inView(hz)));
      body.setAttribute("data-stack-in-view", String(inView($("stack").querySelector("h2"))));
      body.setAttribute("data-expected-in-view", String(inView(x)));
      body.setAttribute("data-layout", "measured");
    }

    function go(i, scroll) {
      if (!steps.length) { return; }
      i = Math.max(0, Math.min(steps.length - 1, i));
      var step = steps[i];
      if (cur >= 0) {
        (rowsByStep[steps[cur]] || []).forEach(function (r) { r.classList.remove("current"); r.removeAttribute("aria-current"); });
      }
      cur = i;
      for (var k = 0; k < rows.length; k++) {
        rows[k].classList.toggle("future", Number(rows[k].getAttribute("data-step")) > step);
      }
      var mine = rowsByStep[step] || [];
      mine.forEach(function (r) { r.classList.add("current"); r.setAttribute("aria-current", "step"); });
      slider.value = String(i);
      position.textContent = "step " + step + " (" + (i + 1) + "/" + steps.length + ")" + (hazardSet[step] ? " ⚠" : "");
      body.setAttribute("data-current-step", String(step));
      body.setAttribute("data-current-hazard", hazardSet[step] ? "true" : "false");
      body.setAttribute("data-clicks", String(clicks));
      $("btn-prev").disabled = i === 0;
      $("btn-first").disabled = i === 0;
      $("btn-next").disabled = i === steps.length - 1;
      $("btn-last").disabled = i === steps.length - 1;
      render(data.states[i]);
      renderStack();
      if (scroll !== false && mine.length) {
        // After layout: scrolling while the page is still being laid out
        // leaves part of it unpainted in some browsers. Only the timeline
        // pane scrolls, so the header and the side panel stay put.
        var target = mine[0];
        setTimeout(function () { scrollToRow(target); measure(); }, 0);
      }
    }
    function scrollToRow(r) {
      var wrap = $("timeline-wrap");
      if (wrap.scrollHeight > wrap.clientHeight) {
        var head = document.querySelector("#timeline thead").offsetHeight;
        var top = r.offsetTop - head - (wrap.clientHeight - head - r.offsetHeight) / 2;
        wrap.scrollTop = Math.max(0, top);
      } else if (r.scrollIntoView) {
        r.scrollIntoView({ block: "center" });
      }
    }
    function indexOf(step) {
      for (var k = 0; k < steps.length; k++) { if (steps[k] >= step) { return k; } }
      return steps.length - 1;
    }
    function nextHazard() {
      for (var k = cur + 1; k < steps.length; k++) { if (hazardSet[steps[k]]) { return k; } }
      for (k = 0; k <= cur; k++) { if (hazardSet[steps[k]]) { return k; } }
      return cur;
    }
    function stop() {
      if (timer) { clearInterval(timer); timer = null; $("btn-play").textContent = "▶ play"; }
    }
    function on(id, fn) {
      $(id).addEventListener("click", function () { clicks++; fn(); });
    }
    on("btn-first", function () { stop(); go(0); });
    on("btn-prev", function () { stop(); go(cur - 1); });
    on("btn-next", function () { go(cur + 1); });
    on("btn-last", function () { stop(); go(steps.length - 1); });
    on("btn-hazard", function () { stop(); go(nextHazard()); });
    on("btn-play", function () {
      if (timer) { stop(); return; }
      if (cur >= steps.length - 1) { go(0); }
      $("btn-play").textContent = "■ pause";
      timer = setInterval(function () {
        if (cur >= steps.length - 1 || hazardSet[steps[cur + 1]]) { go(cur + 1); stop(); return; }
        go(cur + 1);
      }, 350);
    });
    slider.addEventListener("input", function () { stop(); go(Number(slider.value)); });
    $("hide-exec").addEventListener("change", function () { body.classList.toggle("hide-exec", this.checked); });
    var lanes0 = 2 + (data.cpus || 0); // cells before the first task lane
    for (var r = 0; r < rows.length; r++) {
      rows[r].addEventListener("click", function (ev) {
        if (ev.target.closest && ev.target.closest("a")) { return; }
        var td = ev.target.closest ? ev.target.closest("td") : null;
        if (td && td.cellIndex >= lanes0 && td.cellIndex - lanes0 < (data.tasks || []).length) {
          stackTask = td.cellIndex - lanes0;
          stackSel.value = String(stackTask);
        }
        stop(); go(indexOf(Number(this.getAttribute("data-step"))), false);
      });
    }
    document.querySelectorAll("#timeline th.lane-idle").forEach(function (th) {
      th.title = th.textContent + ": no event in this run (click to expand or collapse the idle lanes)";
      th.addEventListener("click", function () { body.classList.toggle("show-idle"); });
    });
    document.querySelectorAll("a.goto").forEach(function (a) {
      a.addEventListener("click", function (ev) {
        ev.preventDefault(); stop(); go(indexOf(Number(a.getAttribute("data-goto"))));
      });
    });
    document.addEventListener("keydown", function (ev) {
      if (ev.target && /INPUT|TEXTAREA/.test(ev.target.tagName) && ev.target.type !== "checkbox") { return; }
      var map = { ArrowRight: "btn-next", j: "btn-next", ArrowLeft: "btn-prev", k: "btn-prev", Home: "btn-first",
        End: "btn-last", h: "btn-hazard", " ": "btn-play" };
      var id = map[ev.key];
      if (id) { ev.preventDefault(); $(id).click(); }
    });

    // URL fragments drive the page's own controls: #step=hazard presses
    // "hazard", #walk=hazard presses "first" then "next" until a hazard,
    // #step=N shows step N.
    function follow() {
      var m = /^#(step|walk)=(\w+)$/.exec(location.hash);
      if (!m) { return; }
      stop();
      if (m[1] === "step" && m[2] === "hazard") {
        $("btn-first").click();
        $("btn-hazard").click();
      } else if (m[1] === "walk" && m[2] === "hazard") {
        $("btn-first").click();
        for (var n = 0; n < steps.length && !hazardSet[steps[cur]]; n++) { $("btn-next").click(); }
      } else if (/^\d+$/.test(m[2])) {
        go(indexOf(Number(m[2])));
      }
      body.setAttribute("data-driven", location.hash.slice(1));
    }
    window.addEventListener("hashchange", follow);
    // Open where the story is: at the first hazard, else at the last step
    // (never at step 1 with every row still in the future).
    var start = data.firstHazard ? indexOf(data.firstHazard) : steps.length - 1;
    go(start);
    follow();
    body.setAttribute("data-status", "ok");
  } catch (e) {
    fail(e && e.message ? e.message : String(e));
  }
})();
