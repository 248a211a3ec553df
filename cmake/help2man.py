#!/usr/bin/env python3
"""Writes a man page (roff, section 1) from a program's --help output, at build time.

The `alibi` CLI also gets one subsection per subcommand from `alibi <command> --help`, found
in its own help text, so the page documents every flag without a hand-kept copy.
Usage: help2man.py --program PATH --name NAME --version X.Y.Z --output FILE.1
"""
import argparse
import datetime
import os
import re
import subprocess
import sys


def run_help(program, *args):
    result = subprocess.run([program, *args, "--help"], capture_output=True, text=True, timeout=60)
    text = result.stdout or result.stderr
    if result.returncode != 0 or not text.strip():
        sys.exit(f"help2man.py: '{program} {' '.join(args)} --help' failed ({result.returncode}): {result.stderr}")
    # Programs that print argv[0] would put the build tree's path into the page.
    return text.replace(program, os.path.basename(program))


def roff_escape(line):
    line = line.replace("\\", "\\e")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line.replace("-", "\\-")


def verbatim(text):
    """A help text kept as the program prints it (a no-fill block)."""
    lines = [".nf"]
    lines += [roff_escape(l.rstrip()) for l in text.strip("\n").splitlines()]
    lines.append(".fi")
    return "\n".join(lines)


def subcommands(help_text):
    """Names listed under a 'SUBCOMMANDS:' heading (CLI11's layout)."""
    names, inside = [], False
    for line in help_text.splitlines():
        if line.strip().upper().startswith("SUBCOMMANDS"):
            inside = True
            continue
        if inside:
            m = re.match(r"^\s{2}(\w[\w-]*)\s", line)
            if m:
                names.append(m.group(1))
            elif line.strip() == "" and names:
                break
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--program", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--output", required=True)
    a = ap.parse_args()

    main_help = run_help(a.program)
    # The one-line summary: the first line of the help that is not a usage line.
    lines = [l.strip() for l in main_help.splitlines() if l.strip()]
    first = next((l for l in lines if not l.lower().startswith("usage")), a.name)
    summary = first.split(":", 1)[1].strip() if first.startswith(a.name + ":") else first
    # SOURCE_DATE_EPOCH keeps the page reproducible when a packager sets it.
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    date = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc).date() if epoch else datetime.date.today()
    title = roff_escape(a.name.upper())
    page = [
        f'.TH {title} 1 "{date.isoformat()}" "ALiBi Explorer {a.version}" "User Commands"',
        ".SH NAME",
        f"{roff_escape(a.name)} \\- {roff_escape(summary)}",
        ".SH DESCRIPTION",
        verbatim(main_help),
    ]
    for command in subcommands(main_help):
        page += [f".SH COMMAND: {roff_escape(command.upper())}", verbatim(run_help(a.program, command))]
    page += [
        ".SH FILES",
        "Presets, example sessions and lessons are read from",
        ".I share/alibi\\-explorer/",
        "beside the installation prefix of the program (or $ALIBI_DATA_DIR).",
        ".SH SEE ALSO",
        ", ".join(f"\\fB{n}\\fR(1)" for n in ("alibi", "alibi-explorer", "alibi-explorer-imgui") if n != a.name)
        .replace("-", "\\-"),
    ]
    tmp = a.output + ".tmp"
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")
    os.replace(tmp, a.output)


if __name__ == "__main__":
    main()
