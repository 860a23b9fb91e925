"""grader/submission.py: search.py found in a file, a folder or a zip, or a clear error."""

import zipfile

import pytest

from grader.errors import SubmissionError
from grader.sandbox.submission import AmbiguousSubmission, choose_submission, locate_submission


def test_a_file_is_itself(tmp_path):
    source = tmp_path / "search.py"
    source.write_text("x = 1\n")
    assert locate_submission(source) == source


def test_a_single_copy_anywhere_is_graded_and_the_choice_says_why(tmp_path):
    (tmp_path / "hw3" / "deep").mkdir(parents=True)
    (tmp_path / "hw3" / "deep" / "search.py").write_text("deep\n")
    (tmp_path / ".git" / "old").mkdir(parents=True)  # hidden folders and caches are not uploads
    (tmp_path / ".git" / "old" / "search.py").write_text("old\n")
    (tmp_path / "__MACOSX").mkdir()
    (tmp_path / "__MACOSX" / "search.py").write_text("fork\n")
    choice = choose_submission(tmp_path)
    assert choice.path.read_text() == "deep\n"
    assert choice.message() == "Graded `hw3/deep/search.py`: the only search.py in your upload."
    assert locate_submission(tmp_path) == choice.path


def test_a_notebook_upload_is_named_as_a_notebook(tmp_path):
    (tmp_path / "search.ipynb").write_text("{}")
    choice = choose_submission(tmp_path)
    assert choice.message() == "Graded `search.ipynb`: the only search.ipynb in your upload."


def test_identical_copies_grade_the_shallowest(tmp_path):
    for folder in ("student", "student/backup"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "search.py").write_text("same\n")
    choice = choose_submission(tmp_path)
    assert choice.name == "student/search.py"
    assert "2 identical copies of search.py in your upload; graded the shallowest" in choice.reason


def test_different_copies_are_refused_with_the_candidates_listed(tmp_path):
    """A correct student/search.py and the untouched stub at the root: grading either could be
    the wrong guess (the shallowest, the stub, used to win and scored 0)."""
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "search.py").write_text("def max_value(): return 1\n")
    (tmp_path / "search.py").write_text("raise NotImplementedError\n")
    with pytest.raises(AmbiguousSubmission) as raised:
        locate_submission(tmp_path)
    message = str(raised.value)
    assert "2 different search.py files: `search.py` (26 bytes), `student/search.py` (26 bytes)" \
        in message
    assert "graded none" in message and "only the search.py to grade" in message


def test_a_zip_with_different_copies_is_refused_too(tmp_path):
    archive = tmp_path / "upload.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("a/search.py", "x = 1\n")
        zipped.writestr("b/search.py", "x = 2\n")
    with pytest.raises(AmbiguousSubmission, match=r"the zip 'upload.zip' holds 2 different"):
        locate_submission(archive, tmp_path / "out")


def test_a_zip_is_extracted_into_a_folder_that_need_not_exist(tmp_path):
    archive = tmp_path / "upload.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("hw/search.py", "x = 2\n")
        zipped.writestr("__MACOSX/hw/search.py", "junk")
    found = locate_submission(archive, tmp_path / "not" / "yet")
    assert found.read_text() == "x = 2\n"
    assert choose_submission(archive, tmp_path / "again").name == "upload.zip/hw/search.py"


def test_missing_search_py_names_what_was_submitted(tmp_path):
    (tmp_path / "solution.py").write_text("")
    with pytest.raises(SubmissionError, match=r"no search.py .*solution.py"):
        locate_submission(tmp_path)
    (tmp_path / "Search (1).py").write_text("")
    with pytest.raises(SubmissionError, match=r"`Search \(1\).py` looks like it: rename it"):
        locate_submission(tmp_path)
    with pytest.raises(SubmissionError, match="no submission at"):
        locate_submission(tmp_path / "absent")


def test_a_broken_zip_is_a_clear_error(tmp_path):
    archive = tmp_path / "upload.zip"
    archive.write_bytes(b"not a zip")
    with pytest.raises(SubmissionError, match="not a readable zip"):
        locate_submission(archive)


def test_a_link_is_never_graded_as_the_students_file(tmp_path):
    import os
    import zipfile

    import pytest

    from grader.errors import SubmissionError
    from grader.sandbox.process import prepare_scratch, remove_tree

    secret = tmp_path / "reference.py"
    secret.write_text("staff\n")
    direct = tmp_path / "direct" / "search.py"
    direct.parent.mkdir()
    direct.symlink_to(secret)
    with pytest.raises(SubmissionError, match="is a symbolic link, not a regular file"):
        locate_submission(direct)
    folder = tmp_path / "upload" / "student"
    folder.mkdir(parents=True)
    (folder / "search.py").symlink_to(secret)
    with pytest.raises(SubmissionError, match="'student/search.py' in the submission is a symbolic"):
        prepare_scratch(tmp_path / "upload", None)
    linked_folder = tmp_path / "linked"
    linked_folder.mkdir()
    (linked_folder / "student").symlink_to(tmp_path / "direct-real", target_is_directory=True)
    (tmp_path / "direct-real").mkdir()
    (tmp_path / "direct-real" / "search.py").write_text("staff\n")
    with pytest.raises(SubmissionError, match="no search.py"):  # a linked folder is not entered
        locate_submission(linked_folder)
    fifo = tmp_path / "fifo" / "search.py"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    with pytest.raises(SubmissionError, match="a device, FIFO or socket"):
        locate_submission(fifo.parent)
    archive = tmp_path / "upload.zip"
    with zipfile.ZipFile(archive, "w") as out:
        member = zipfile.ZipInfo("search.py")
        member.external_attr = 0o120777 << 16  # a symbolic link, as zip -y stores one
        out.writestr(member, str(secret))
    with pytest.raises(SubmissionError, match="'search.py' in 'upload.zip' is a symbolic link"):
        locate_submission(archive, tmp_path / "unzipped")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "search.py").write_text("student\n")
    scratch, target, _ = prepare_scratch(plain, None)
    assert target.read_text() == "student\n" and not target.is_symlink()
    assert remove_tree(scratch)
