"""Sandbox: the student's code, run in a worker process that is treated as an adversary.

Owns: finding the submission (:mod:`.submission`; a notebook's code cells turned into
``search.py`` by :mod:`.notebook`, in the parent, nothing executed), the parent's side of the
worker (:mod:`.client`: :class:`~.client.Worker`, :class:`~.client.Limits`,
:class:`~.client.WorkerReply`; the process's start and end, :mod:`.lifecycle`; its private channel, :mod:`.channel`, checked as hostile input,
:mod:`.protocol`; its own limits on the worker, :mod:`.watch`; the worker's private folders,
:mod:`.private`; its scratch folder measured and removed, :mod:`.process`), the worker process
itself (:mod:`.worker`, run as ``python -m grader.sandbox.worker``; its CPU-time backstop
:mod:`.guard`, its replies' parts :mod:`.reply_parts`), the portable worker for local checks
where the sandbox cannot run (:mod:`.portable`, its child :mod:`.portable_worker`; never for
``grader grade``) and the static audit staff read (:mod:`.audit`). docs/security.md is the threat model.

May import: :mod:`grader.run` (the worker runs the traced search), :mod:`grader.cases`,
:mod:`grader.games`, the shared modules. Never :mod:`grader.answers`: nothing the reference
knows may reach the worker.
"""
