@echo off
rem Grade a submission (default: the bundled student\search.py) against the public cases.
rem Usage: bin\grade.cmd [SUBMISSION] [grader check options...]   (cmd or PowerShell)
setlocal
for %%I in ("%~dp0..") do set "root=%%~fI"
call "%root%\bin\setup.cmd"
if errorlevel 1 exit /b 1
set "submission=%root%\student\search.py"
set "first=%~1"
if not defined first goto collect
if "%first:~0,1%"=="-" goto collect
set "submission=%~1"
shift
:collect
set args=
:next
if "%~1"=="" goto run
set args=%args% %1
shift
goto next
:run
"%root%\.venv\Scripts\python.exe" -m grader check --submission "%submission%" %args%
exit /b %errorlevel%
