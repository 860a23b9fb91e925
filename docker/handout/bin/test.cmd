@echo off
rem Run the public cases as pytest tests (student\test_search.py); arguments go to pytest.
rem Usage: bin\test.cmd [pytest options...]   (cmd or PowerShell)
setlocal
for %%I in ("%~dp0..") do set "root=%%~fI"
call "%root%\bin\setup.cmd"
if errorlevel 1 exit /b 1
cd /d "%root%"
"%root%\.venv\Scripts\python.exe" -m pytest %*
exit /b %errorlevel%
