"""grader/submission.py: search.py found in a file, a folder or a zip, or a clear error."""

import zipfile

import pytest

from grader.errors import SubmissionError
from grader.sandbox.submission import locate_submission


def test_a_file_is_itself(tmp_path):
    source = tmp_path / "search.py"
    source.write_text("x = 1\n")
    assert locate_submission(source) == source


def test_a_folder_prefers_the_shallowest_copy_and_student(tmp_path):
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / "search.py").write_text("deep\n")
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "search.py").write_text("student\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "search.py").write_text("other\n")
    assert locate_submission(tmp_path).read_text() == "student\n"


def test_a_zip_is_extracted_into_a_folder_that_need_not_exist(tmp_path):
    archive = tmp_path / "upload.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("hw/search.py", "x = 2\n")
        zipped.writestr("__MACOSX/hw/search.py", "junk")
    found = locate_submission(archive, tmp_path / "not" / "yet")
    assert found.read_text() == "x = 2\n"


def test_missing_search_py_names_what_was_submitted(tmp_path):
    (tmp_path / "solution.py").write_text("")
    with pytest.raises(SubmissionError, match=r"no search.py .*solution.py"):
        locate_submission(tmp_path)
    with pytest.raises(SubmissionError, match="no submission at"):
        locate_submission(tmp_path / "absent")


def test_a_broken_zip_is_a_clear_error(tmp_path):
    archive = tmp_path / "upload.zip"
    archive.write_bytes(b"not a zip")
    with pytest.raises(SubmissionError, match="not a readable zip"):
        locate_submission(archive)
