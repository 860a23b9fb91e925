// The step-through of the HTML report (grader/html.py): one slider per failing case replays
// both searches' `generated` sequences at once. Plain script, no library, no network.
(function () {
  "use strict";

  function positions(ids) {  // id -> the steps (1-based) at which a search generated it
    var found = Object.create(null);
    ids.forEach(function (id, index) {
      (found[id] = found[id] || []).push(index + 1);
    });
    return found;
  }

  function unpack(data) {  // grader/report/html/packing.py: names and lines are stored once
    var texts = data.lines.map(function (line) {
      var template = data.templates[line[0]];
      var text = template[1];
      for (var i = 1; i < line.length; i++) { text += data.nodes[line[i]] + template[i + 1]; }
      return [template[0], text];
    });
    ["ref", "got"].forEach(function (side) {
      data[side].ids = data[side].ids.map(function (i) { return data.nodes[i]; });
      data[side].lines = texts;
    });
    return data;
  }

  function setUp(section) {
    var data = unpack(JSON.parse(section.querySelector("script.replay-data").textContent));
    var slider = section.querySelector("input.step");
    var label = section.querySelector(".step-label");
    var refAt = positions(data.ref.ids);
    var gotAt = positions(data.got.ids);
    var nodes = Array.prototype.map.call(section.querySelectorAll("g.node"), function (g) {
      var id = g.getAttribute("data-id");
      return {g: g, ref: refAt[id] || [], got: gotAt[id] || []};
    });
    var current = data.steps;
    var pointers = {ref: section.querySelector("path.cur.ref"), got: section.querySelector("path.cur.got")};

    var picture = section.querySelector(".picture");

    function centre(element) {  // scroll the picture (not the page) to show an element
      if (!picture || !element) { return; }
      var box = picture.getBoundingClientRect();
      var mark = element.getBoundingClientRect();
      picture.scrollLeft += (mark.left + mark.width / 2) - (box.left + box.width / 2);
      picture.scrollTop += (mark.top + mark.height / 2) - (box.top + box.height / 2);
    }

    function point(side, id) {  // move the side's pointer onto the node it enters now
      var pointer = pointers[side];
      if (!pointer) { return; }
      var ring = null;
      nodes.some(function (node) {
        if (node.g.getAttribute("data-id") !== id) { return false; }
        ring = node.g.querySelector("circle.ring." + side);
        return ring !== null;
      });
      pointer.classList.toggle("on", ring !== null);
      if (ring) {
        pointer.setAttribute("transform", "translate(" + ring.getAttribute("cx") + "," +
                             ring.getAttribute("cy") + ")");
      }
    }

    function fill(side, step) {
      var column = section.querySelector(".side-" + side);
      var list = column.querySelector("ul");
      var info = data[side];
      while (list.firstChild) { list.removeChild(list.firstChild); }
      (info.rows[step] || []).forEach(function (index) {
        var line = info.lines[index];
        var item = document.createElement("li");
        item.className = line[0];
        item.textContent = line[1];
        list.appendChild(item);
      });
    }

    function show(step, moved) {
      current = Math.max(0, Math.min(data.steps, step));
      slider.value = String(current);
      nodes.forEach(function (node) {
        var cl = node.g.classList;
        cl.toggle("vr", node.ref.some(function (s) { return s <= current; }));
        cl.toggle("vg", node.got.some(function (s) { return s <= current; }));
        cl.toggle("cr", node.ref.indexOf(current) !== -1);
        cl.toggle("cg", node.got.indexOf(current) !== -1);
      });
      var text = "step " + current + " of " + data.steps;
      if (data.first !== null && current === data.first) { text += ": the first difference"; }
      label.textContent = text;
      section.setAttribute("data-step", String(current));
      fill("ref", current);
      fill("got", current);
      point("ref", data.ref.ids[current - 1]);
      point("got", data.got.ids[current - 1]);
      var shown = [pointers.got, pointers.ref].filter(function (p) {
        return p && p.classList.contains("on");
      });
      if (moved) { centre(shown[0]); }
    }

    slider.addEventListener("input", function () { show(Number(slider.value), true); });
    section.querySelector("button.prev").addEventListener("click", function () { show(current - 1, true); });
    section.querySelector("button.next").addEventListener("click", function () { show(current + 1, true); });
    section.querySelector("button.jump").addEventListener("click", function () {
      show(data.first === null ? data.steps : data.first, true);
    });
    section.querySelector("button.end").addEventListener("click", function () { show(data.steps, true); });
    section.addEventListener("keydown", function (event) {
      if (event.target === slider) { return; }  // the slider steps itself on arrow keys
      if (event.key === "ArrowLeft") { show(current - 1, true); event.preventDefault(); }
      if (event.key === "ArrowRight") { show(current + 1, true); event.preventDefault(); }
      if (event.key === "Home") { show(0, true); event.preventDefault(); }
      if (event.key === "End") { show(data.steps, true); event.preventDefault(); }
    });
    section.classList.add("stepping");
    show(current, false);
    centre(section.querySelector("g.first"));  // open on the first difference
  }

  Array.prototype.forEach.call(document.querySelectorAll("section.case[data-replay]"), setUp);

  // evaluate tests: each match one board (grader/report/html/board.py), stepped move by move
  function setUpMatch(match) {
    var data = JSON.parse(match.querySelector("script.match-data").textContent);
    var slider = match.querySelector("input.play-step");
    var label = match.querySelector(".move-label");
    var cells = [];
    Array.prototype.forEach.call(match.querySelectorAll("g.cell"), function (g) {
      cells[Number(g.getAttribute("data-cell"))] = g;
    });
    var total = data.moves.length;
    var winLine = match.querySelector("g.winline");
    var marks = match.querySelectorAll("g.cand");
    var panel = match.querySelector(".choice");
    var lastMark = match.querySelector("g.lastmark");
    var current = data.start;
    var words = {win: "won", draw: "drawn", loss: "lost"};

    function who(number, mark) {  // the same words as play.py's step_label
      if (number <= data.opening) { return "random opening"; }
      return mark === data.side ? "you" : "opponent";
    }

    function text(step) {
      var out;
      if (step === 0) {
        out = "start: before move 1 of " + total;
      } else {
        var move = data.moves[step - 1];
        out = "move " + step + " of " + total + ": " + move[0] + " (" + who(step, move[0]) +
              ") played " + data.unit + " " + move[2];
      }
      if (step === total) { out += "; the match is " + data.outcome; }
      if (step === data.choice) { out += "; your move " + (step + 1) + " next: where your choice lost"; }
      return out;
    }

    function show(step) {
      current = Math.max(0, Math.min(total, step));
      slider.value = String(current);
      var board = data.initial.split("");
      for (var i = 0; i < current; i++) { board[data.moves[i][1]] = data.moves[i][0]; }
      var last = current > 0 ? data.moves[current - 1][1] : -1;
      cells.forEach(function (g, cell) {
        var cl = g.classList;
        cl.toggle("x", board[cell] === "x");
        cl.toggle("o", board[cell] === "o");
        cl.toggle("won", current === total && g.hasAttribute("data-won"));
      });
      if (lastMark) {  // onto the last move's cell (board.py draws one when a move was made)
        lastMark.classList.toggle("off", last < 0);
        if (last >= 0) { lastMark.setAttribute("transform", cells[last].getAttribute("transform")); }
      }
      if (winLine) { winLine.classList.toggle("on", current === total); }
      Array.prototype.forEach.call(marks, function (mark) {
        mark.classList.toggle("on", current === data.choice);
      });
      if (panel) { panel.classList.toggle("here", current === data.choice); }
      label.textContent = text(current);
      match.setAttribute("data-step", String(current));
    }

    slider.addEventListener("input", function () { show(Number(slider.value)); });
    match.querySelector("button.prev").addEventListener("click", function () { show(current - 1); });
    match.querySelector("button.next").addEventListener("click", function () { show(current + 1); });
    match.querySelector("button.end").addEventListener("click", function () { show(total); });
    match.querySelector("button.start").addEventListener("click", function () { show(0); });
    Array.prototype.forEach.call(match.querySelectorAll("button.to-choice"), function (button) {
      button.addEventListener("click", function () { show(data.choice); });
    });
    match.addEventListener("keydown", function (event) {
      if (event.target === slider) { return; }  // the slider steps itself on arrow keys
      if (event.key === "ArrowLeft") { show(current - 1); event.preventDefault(); }
      if (event.key === "ArrowRight") { show(current + 1); event.preventDefault(); }
      if (event.key === "Home") { show(0); event.preventDefault(); }
      if (event.key === "End") { show(total); event.preventDefault(); }
    });
    match.classList.add("stepping");
    show(current);
  }

  Array.prototype.forEach.call(document.querySelectorAll(".play-match"), setUpMatch);
}());
