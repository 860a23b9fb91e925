@echo off
rem Run the project's test suite (arguments go to pytest). Usage: bin\test.cmd [pytest options...]
rem (cmd or PowerShell). Off Linux the sandbox's own tests cannot pass: bin\test.cmd -m local_check
rem runs the part that checks what students run (grader check, the pytest front end, render,
rem the HTML report), in the portable worker.
setlocal
for %%I in ("%~dp0..") do set "root=%%~fI"
call "%root%\bin\setup.cmd"
if errorlevel 1 exit /b 1
cd /d "%root%"
"%root%\.venv\Scripts\python.exe" -m pytest -q %*
exit /b %errorlevel%
