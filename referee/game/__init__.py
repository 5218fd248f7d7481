"""One game directory's life, on the referee's side.

Its configuration (`config`) and journal (`journal`), the installed games (`registry`), the
opened game (`opened`), the phase engine (`engine`: init, submit, adjudicate), adjudication
(`adjudication`, `states`, `results`), the public beacon's rounds (`beacons`), what each letter
says (`announce`), the referee's
overrides (`overrides`, `override`), rollback and roll forward (`rollback`), the audit
(`audit`), preview, attendance and deadlines, disputes, reveals (`reveal`), `explain` with the
journal's events, and `status`. It may import the letters, the kit, the protocol and the ground
(`referee.errors`, `referee.files`); never the mail or the command line.
"""
