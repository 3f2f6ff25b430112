#!/usr/bin/env python3
"""Summarizes an Autobahn|Testsuite report (index.json) for scripts/autobahn/run.sh.

usage: summary.py INDEX_JSON CASES_FILE
  CASES_FILE lists the ids of the cases the run selected, one per line; the report must hold every one of them.

stdout: one line per case that is not a plain pass (its behaviour, the closing behaviour and the close code the
server sent), then exactly
  autobahn: N cases, OK=a NON-STRICT=b INFORMATIONAL=c UNIMPLEMENTED=d FAILED=e
exit: 0 no case FAILED or UNIMPLEMENTED (NON-STRICT and INFORMATIONAL pass), 1 some did, 2 the report is missing,
unreadable or lacks cases.
"""

import json
import sys

AGENT = "rollcall"
VERDICTS = ("OK", "NON-STRICT", "INFORMATIONAL", "UNIMPLEMENTED", "FAILED")
PASSING = ("OK", "INFORMATIONAL")


def case_key(case_id):
    return tuple(int(part) for part in case_id.split("."))


def main(index_path, cases_path):
    with open(cases_path) as cases_file:
        expected = {line.strip() for line in cases_file if line.strip()}
    try:
        with open(index_path) as index_file:
            results = json.load(index_file)[AGENT]
    except (OSError, ValueError, KeyError) as error:
        print(f"autobahn: no usable report at {index_path}: {error!r}", file=sys.stderr)
        return 2
    missing = sorted(expected - results.keys(), key=case_key)
    if missing:
        shown = " ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        print(
            f"autobahn: the report lacks {len(missing)} of {len(expected)} cases ({shown}); "
            "did the server stop or drop connections? See wstest.log beside the report",
            file=sys.stderr,
        )
        return 2

    counts = dict.fromkeys(VERDICTS, 0)
    for case_id in sorted(expected, key=case_key):
        result = results[case_id]
        behavior, closing = result.get("behavior"), result.get("behaviorClose")
        counts[behavior if behavior in counts else "FAILED"] += 1
        if behavior not in PASSING or closing not in PASSING:
            code = result.get("remoteCloseCode")
            print(f"{case_id:<9} behavior={behavior} behaviorClose={closing} closeCode={code}")
    print(f"autobahn: {len(expected)} cases, " + " ".join(f"{name}={counts[name]}" for name in VERDICTS))
    return 0 if counts["FAILED"] == 0 and counts["UNIMPLEMENTED"] == 0 else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
