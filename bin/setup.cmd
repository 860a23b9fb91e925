@echo off
rem Create .venv beside the repo and install the grader into it (once; again when
rem pyproject.toml changes). Needs only Python 3.10+: the "py" launcher from python.org, or
rem "python" on PATH, or set PYTHON=C:\path\to\python.exe. Works from cmd and PowerShell.
rem (No %%variables%% inside parenthesized blocks: a folder name with ")" would end them.)
setlocal
for %%I in ("%~dp0..") do set "root=%%~fI"
set "venv=%root%\.venv"
if exist "%venv%\Scripts\python.exe" goto venv_ready
set python="%PYTHON%"
if defined PYTHON goto python_chosen
set "python=python"
where py >nul 2>&1
if not errorlevel 1 set "python=py -3"
:python_chosen
%python% -c "import sys; sys.exit(sys.version_info < (3, 10))"
if errorlevel 1 goto no_python
echo setup: creating %venv% 1>&2
%python% -m venv "%venv%"
if errorlevel 1 exit /b 1
:venv_ready
rem The stamp is a copy of the pyproject.toml that was installed: reinstall when they differ.
fc /b "%root%\pyproject.toml" "%venv%\.installed" >nul 2>&1
if not errorlevel 1 exit /b 0
rem The handout (no tests folder) gets the runtime dependencies only, as "pip install -e ."
rem does; the staff repository also gets the [dev] extras its test suite needs.
set "target=%root%"
if exist "%root%\tests\" set "target=%root%[dev]"
echo setup: installing the grader into %venv% with pip (first run, or pyproject.toml changed; log: %venv%\install.log): one to three minutes the first time, with no output until it is done... 1>&2
"%venv%\Scripts\python.exe" -m pip install --disable-pip-version-check -e "%target%" >"%venv%\install.log" 2>&1
if errorlevel 1 goto install_failed
copy /y "%root%\pyproject.toml" "%venv%\.installed" >nul
echo setup: ready 1>&2
exit /b 0
:no_python
echo error: Python 3.10 or newer is needed: install it from python.org, or set PYTHON 1>&2
exit /b 1
:install_failed
type "%venv%\install.log" 1>&2
echo error: installing the grader failed; the whole log is %venv%\install.log 1>&2
exit /b 1
