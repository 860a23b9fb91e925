"""The HTML report: a failing case's search replayed beside the reference's, in one file.

``grader check --html F`` calls :func:`write_html_report` with the :class:`GradingResults` it
printed; ``grader report RESULTS --html F`` rebuilds them from a graded ``results.json``
(:func:`grader.commands.report.report_main`). The page is self-contained (inline SVG, CSS and a
small script from ``grader/html/``; no URL is fetched) and XHTML-compatible, so an XML parser reads
it too.

Per failing test with replay data (``extra_data["replay"]``, put there by
:func:`grader.scoring.grade.grade_pair`): the tree drawn with both searches over it (the tree data
comes from :func:`grader.feedback.scene.build_scene`; the layout is here, so no Graphviz is needed),
the first difference with the hint of the known mistake beside it, and a step-through of both
``generated`` sequences. What each step shows (built here, read by ``report.js``):

* alpha-beta: the reference's window and ``v`` at the parent, from the replay the answer key
  keeps (:func:`grader.feedback.diagnosis.window_moments`); the student's only when their trace is
  exactly one rule's (then it is that rule's): a trace alone does not say what a window was;
* minimax, expectimax, max^n: the reference's best so far at each node on the path and each
  chance node's running weighted sum (a child counts, with its exact value, once the search has
  left it); for the student only the node entered: their values are not in their trace;
* MCTS: the root's children's visits and mean rewards after each iteration, rebuilt by running
  the reference's UCT along the trace (:func:`mcts_iterations`, staff only); the student's only
  when their whole trace follows the convention.

A tree of more than :data:`grader.report.html.layout.WHOLE_TREE` nodes is drawn around the first
difference. A page stays under 1 MB however many tests fail: once the sections reach
:data:`grader.report.html.report.PAGE_BUDGET`, each further failing test gets a brief section
(summary and anchor, no step-through) saying how to draw it on its own.

The modules, in the order data flows through them:

* ``steps.py``: one search's step-through (:class:`~grader.report.html.steps.Side`), alpha-beta's
  windows and the reference's running values;
* ``mcts.py``: MCTS's iterations rebuilt from a trace, and its step-through;
* ``layout.py``: which nodes of the tree are drawn, and where;
* ``picture.py``: the tree as inline SVG;
* ``replay.py``: one failing test's :class:`CaseReplay`, from its replay data;
* ``board.py``: a match of a grid game replayed from its record and drawn as a board (the
  one drawing piece of every play report);
* ``play.py``: an ``evaluate`` test's section, from its match records alone (no case file or
  answer key): the table by side, the thresholds, every match on a board with a slider,
  lost ones opening at the losing choice with both candidate moves and both evaluations;
* ``packing.py``: a section's step-through data with each node name, line and line template
  stored once (unpacked by ``report.js``): with trees of more than 120 nodes drawn around the
  difference, what keeps a page of long built-in-game traces under 1 MB;
* ``page.py``: the document (score table, legend, sections), with ``report.css`` and
  ``report.js``;
* ``load.py``: the results model from ``results.json``, and a replay's case file;
* ``report.py``: the entry points.

Apart from the replay: ``classpage.py``, the class report's page, from the figures
:mod:`grader.batch.classreport` works out of a whole batch (static: inline SVG, no script).
"""

from __future__ import annotations

from grader.report.html.load import ReportError, results_from_json
from grader.report.html.mcts import mcts_iterations
from grader.report.html.replay import CaseReplay, build_replay
from grader.report.html.report import report_html, write_html_report

__all__ = ["CaseReplay", "ReportError", "build_replay", "mcts_iterations", "report_html",
           "results_from_json", "write_html_report"]
