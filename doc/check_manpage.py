#!/usr/bin/env python3
"""Check that doc/ibr.1 documents what the ibr command implements.

usage: check_manpage.py IBR_EXECUTABLE MANPAGE VERSION

Fails (exit 1) when the man page's .TH line does not name VERSION, when a
subcommand listed by `ibr --help` has no section in the man page, or when
an option printed by `ibr COMMAND --help` is not mentioned in the man page.
"""
import re
import subprocess
import sys


def man_text(path):
    with open(path, encoding="utf-8") as f:
        src = f.read()
    # undo the troff escapes used for dashes and font changes
    text = src.replace("\\-", "-").replace("\\fB", "").replace("\\fI", "")
    text = text.replace("\\fP", "").replace("\\fR", "")
    return src, text


def help_of(ibr, *args):
    out = subprocess.run([ibr, *args, "--help"], check=True, capture_output=True, text=True)
    return out.stdout


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    ibr, manpage, version = sys.argv[1:]
    src, text = man_text(manpage)
    problems = []

    th = re.search(r'^\.TH IBR 1 .*"ibroute ([^"]+)"', src, re.M)
    if not th or th.group(1) != version:
        problems.append("the .TH line does not name ibroute %s" % version)

    top = help_of(ibr)
    commands = re.findall(r"^  ([a-z]+) ", top.split("Commands:")[1], re.M)
    if not commands:
        problems.append("no commands found in 'ibr --help'")
    for cmd in commands:
        if not re.search(r'^\.SS "ibr %s\b' % cmd, src, re.M):
            problems.append("command '%s' has no .SS section" % cmd)
        if cmd == "help":
            continue
        for opt in sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9_-]*|-[a-zA-Z])\b",
                                         help_of(ibr, cmd)))):
            if opt == "-h":
                continue
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(opt), text):
                problems.append("'ibr %s' option %s is not in the man page" % (cmd, opt))

    for p in problems:
        print("check_manpage: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
