"""The referee's home and its mail: many games in one folder, run unattended.

The home and its configuration (`home`), a pass over every game (`run`), mail intake
(`intake`, `message`, `ledger`), IMAP and SMTP (`imap`, `smtp`), the machine's sendmail
(`sendmail`, for `referee send`), players' commands by mail
(`commands`, `disputes`, `directory`) and the home's own letters (`replies`). It may import the
game layer and everything below it; only the command line imports it.
"""
