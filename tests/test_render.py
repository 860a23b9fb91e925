"""``grader render`` (grader/render.py): text and DOT pinned by golden files, SVG/PNG via dot.

Goldens live in tests/goldens/ta/ (the ``golden`` fixture of tests/conftest.py); rewrite them
deliberately with ``pytest tests/test_render.py --update-goldens`` and review the diff.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader import cli
from grader.cases import load_case
from grader.commands.render import render_main
from grader.feedback import scene as render
from grader.feedback.scene import build_scene, render_dot, render_svg, render_text

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "trees" / "public"
CORRECT = Path(__file__).resolve().parent / "submissions" / "correct" / "search.py"

pytestmark = pytest.mark.local_check  # run again in the portable worker: tests/test_portable.py
needs_dot = pytest.mark.skipif(shutil.which("dot") is None,
                               reason="Graphviz's dot is not installed")

# golden file -> (case, algorithm, format); the rule is fixed so the rubric cannot move them.
PICTURES = {
    "aima-fig-5-2.txt": ("aima-fig-5-2", None, "txt"),
    "aima-fig-5-2.alpha_beta.txt": ("aima-fig-5-2", "alpha_beta", "txt"),
    "prune-equal-deep-cutoff.alpha_beta.txt": ("prune-equal-deep-cutoff", "alpha_beta", "txt"),
    "graph-shared-state.minimax.txt": ("graph-shared-state", "minimax", "txt"),
    "expectimax-notes-8-8-vs-36-3.expectimax.txt": ("expectimax-notes-8-8-vs-36-3",
                                                    "expectimax", "txt"),
    "aima-fig-5-2.alpha_beta.dot": ("aima-fig-5-2", "alpha_beta", "dot"),
    "graph-shared-state.alpha_beta.dot": ("graph-shared-state", "alpha_beta", "dot"),
    "aima-fig-5-4-three-player.maxn.dot": ("aima-fig-5-4-three-player", "maxn", "dot"),
}


def _case(name: str):
    return load_case(PUBLIC / f"{name}.json")


@pytest.mark.parametrize("picture", PICTURES)
def test_picture_matches_its_golden(golden, picture):
    name, algorithm, form = PICTURES[picture]
    scene = build_scene(_case(name), algorithm, pruning="inclusive")
    golden(f"ta/{picture}", render_text(scene) if form == "txt" else render_dot(scene))


def test_text_marks_the_cut_and_the_pruned_leaves():
    text = render_text(build_scene(_case("aima-fig-5-2"), "alpha_beta", pruning="inclusive"))
    lines = {line.lstrip("|`+- ").split()[0]: line for line in text.splitlines()[4:]}
    assert "// 2 <= alpha 3" in lines["C"] and "<=2" in lines["C"]
    assert lines["C2"].rstrip().endswith("x") and lines["C3"].rstrip().endswith("x")
    assert "#6" in lines["C1"]


def test_dot_draws_textbook_shapes_and_greys_pruned_branches():
    dot = render_dot(build_scene(_case("aima-fig-5-2"), "alpha_beta", pruning="inclusive"))
    assert 'shape=triangle, label="A\\n3"' in dot and "shape=invtriangle" in dot
    c2 = next(line for line in dot.splitlines() if 'label="C2' in line)
    assert "dashed" in c2 and "gray" in c2 and "penwidth" not in c2
    cut = next(line for line in dot.splitlines() if "arrowhead=tee" in line)
    assert 'label="// 2 <= alpha 3"' in cut
    chance = render_dot(build_scene(_case("expectimax-notes-8-8-vs-36-3"), "expectimax"))
    assert "shape=circle" in chance and 'label="0.4"' in chance


def test_strict_rule_draws_no_cut_where_inclusive_does():
    case = _case("prune-equal-root-level")
    inclusive = render_text(build_scene(case, "alpha_beta", pruning="inclusive"))
    strict = render_text(build_scene(case, "alpha_beta", pruning="strict"))
    assert "// 3 <= alpha 3" in inclusive and "//" not in strict.split("\n", 4)[-1]


def test_student_run_is_drawn_over_the_reference():
    case = _case("prune-equal-root-level")
    searched = ["B", "B1", "B2", "B3", "C", "C1", "D", "D1", "D2", "D3"]
    reference = SimpleNamespace(generated=searched, value=3, action="B")
    student = SimpleNamespace(generated=searched[:6] + ["C2", "C3"] + searched[6:])
    scene = build_scene(case, "alpha_beta", reference, student, pruning="inclusive")
    text = render_text(scene)
    c2 = next(line for line in text.splitlines() if " C2 " in line)
    assert "x" in c2 and "you #7 !" in c2
    dot = render_dot(scene)
    c2_node = next(line for line in dot.splitlines() if 'label="C2' in line)
    assert "peripheries=2" in c2_node and "dashed" in c2_node  # theirs over a pruned node


def test_trace_runs_the_submission_in_the_sandbox(tmp_path, capsys):
    strict = tmp_path / "search.py"
    source = CORRECT.read_text()
    strict.write_text(source.replace("if v >= beta:", "if v > beta:")
                      .replace("if v <= alpha:", "if v < alpha:"))
    case = PUBLIC / "prune-equal-root-level.json"
    assert render_main(case, "txt", algorithm="alpha_beta", trace=strict) == 0
    text = capsys.readouterr().out
    assert "you #7 !" in text and "you #1" in text


def test_trace_uses_the_worker_grader_check_uses(tmp_path, capsys, monkeypatch):
    """Where the sandbox cannot run (forced here), ``--trace`` runs the submission in the
    portable worker, as ``grader check`` does: the sandboxed worker is never started."""
    from grader.sandbox.client import Worker

    def no_sandbox(self):
        raise AssertionError("render --trace started the sandboxed worker")

    monkeypatch.setattr(Worker, "_spawn", no_sandbox)  # PortableWorker has its own
    monkeypatch.setenv("GRADER_PORTABLE", "1")
    case = PUBLIC / "prune-equal-root-level.json"
    assert render_main(case, "txt", algorithm="alpha_beta", trace=CORRECT) == 0
    assert "you #1" in capsys.readouterr().out


@needs_dot
def test_svg_is_well_formed_and_names_every_node():
    svg = render_svg(_case("aima-fig-5-2"), "alpha_beta")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    texts = {"".join(t.itertext()) for t in root.iter() if t.tag.endswith("text")}
    assert {"A", "B1", "C2", "D3"} <= texts


@needs_dot
def test_png_is_written_with_out(tmp_path, capsys):
    out = tmp_path / "tree.png"
    assert cli.main(["render", str(PUBLIC / "aima-fig-5-2.json"), "-f", "png", "-a",
                     "alpha_beta", "--out", str(out)]) == 0
    assert out.read_bytes().startswith(b"\x89PNG") and "wrote" in capsys.readouterr().out


def test_missing_dot_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setattr(render.shutil, "which", lambda name: None)
    assert render_main(PUBLIC / "aima-fig-5-2.json", "svg") == 2
    error = capsys.readouterr().err
    assert "apt-get install graphviz" in error and "brew install graphviz" in error
    assert render_main(PUBLIC / "aima-fig-5-2.json", "dot") == 0  # dot text needs no Graphviz


@pytest.mark.parametrize("args, words", [
    (("tictactoe-empty-board", "txt", None), ["more than 2000 nodes"]),
    (("aima-fig-5-2", "txt", "expectimax"), ["expectimax is not among the case's algorithms"]),
    (("no-such-case", "txt", None), ["no-such-case.json"]),
])
def test_render_main_reports_bad_input(args, words, capsys):
    name, form, algorithm = args
    assert render_main(PUBLIC / f"{name}.json", form, algorithm=algorithm) == 2
    error = capsys.readouterr().err
    assert all(word in error for word in words), error


def test_an_mcts_picture_names_the_chosen_move_and_draws_only_what_mcts_expanded():
    case = load_case(PUBLIC / "mcts-tiny-tree.json")
    scene = build_scene(case, "mcts")
    text, dot = render_text(scene), render_dot(scene)
    assert "mcts (30 iterations, seed 1): chooses move B" in text
    assert "value B" not in text and "value B" not in dot
    for drawing in (text, dot):
        assert "pruned" not in drawing and "cut" not in drawing
        assert "generated n-th by the reference's MCTS" in drawing
    assert "only the 7 nodes MCTS expanded are drawn (of 8 in the game tree)" in text
    assert [node.id for node in scene.nodes] == ["A", "B", "B1", "B2", "C", "C1", "D"]


def test_the_legend_explains_rounded_boxes_only_where_the_depth_limit_cuts():
    limited = render_dot(build_scene(load_case(PUBLIC / "depth-limit-2.json"), "alpha_beta"))
    assert "rounded box: a node the depth limit cuts, scored by its eval" in limited
    assert 'style="rounded' in limited.split("rounded box")[1]  # and such a node is drawn so
    plain = render_dot(build_scene(load_case(PUBLIC / "aima-fig-5-2.json"), "alpha_beta"))
    assert "rounded" not in plain


def test_a_pruned_internal_node_keeps_a_second_line_so_its_label_fits_its_triangle():
    dot = render_dot(build_scene(load_case(PUBLIC / "prune-equal-deep-cutoff.json"),
                                 "alpha_beta", pruning="inclusive"))
    c2 = next(line for line in dot.splitlines() if 'label="C2\\n' in line)
    assert 'label="C2\\npruned"' in c2
    assert "dashed" in c2


@needs_dot
def test_a_wide_tree_png_is_scaled_to_a_sane_size(tmp_path, capsys):
    import struct

    wide = ROOT / "trees" / "hidden" / "tictactoe-o-to-move.json"
    out = tmp_path / "wide.png"
    assert render_main(wide, "png", algorithm="alpha_beta", out=out) == 0
    width, height = struct.unpack(">II", out.read_bytes()[16:24])
    assert width <= 3840 and height <= 1920 and out.stat().st_size < 1_000_000
    assert "the PNG is scaled down" in capsys.readouterr().out


def test_an_mcts_picture_of_a_student_run_keeps_the_nodes_only_the_student_expanded():
    case = load_case(PUBLIC / "mcts-tiny-tree.json")
    scene = build_scene(case, "mcts", student_run=SimpleNamespace(generated=["C", "C2"]))
    assert "C2" in [node.id for node in scene.nodes]
    assert "nodes the reference's or your MCTS expanded are drawn" in render_text(scene)
