# Writes the fuzzingclient spec for one run and prints the ids of the cases it selects, one per line, in order.
# Runs on the fuzzing client's Python 2.7 (scripts/autobahn/run.sh), so the selection is exactly wstest's own.
#
# usage: python2 spec.py SPEC_PATH URL REPORT_DIR CASE_GLOB... -- EXCLUDE_GLOB...
#   A glob is a case id ("6.4.1") or a pattern where "*" matches anything and "." is literal, matched from the
#   start of the id: "1.*" is group 1, "1*" also groups 10-13.
# exit: 0 written (possibly selecting nothing), 2 bad arguments or an unknown case id
import json
import sys

from autobahntestsuite.case import CaseBasename, CaseCategories, Cases, CaseSetname, CaseSubCategories
from autobahntestsuite.caseset import CaseSet


def main(argv):
    if len(argv) < 4 or "--" not in argv[3:]:
        sys.stderr.write("usage: spec.py SPEC_PATH URL REPORT_DIR CASE_GLOB... -- EXCLUDE_GLOB...\n")
        return 2
    spec_path, url, report_dir = argv[:3]
    rest = argv[3:]
    split = rest.index("--")
    cases, excluded = rest[:split], rest[split + 1:]
    case_set = CaseSet(CaseSetname, CaseBasename, Cases, CaseCategories, CaseSubCategories)
    for glob in cases + excluded:
        if "*" not in glob and glob not in case_set.CasesIndices:
            sys.stderr.write("autobahn: no case %s (a case id like 6.4.1, or a glob like '6.*')\n" % glob)
            return 2
    spec = {
        "outdir": report_dir,
        "servers": [{"agent": "rollcall", "url": url}],
        "cases": cases,
        "exclude-cases": excluded,
        "exclude-agent-cases": {},
    }
    with open(spec_path, "w") as spec_file:
        json.dump(spec, spec_file, indent=2, sort_keys=True)
    for case_id in case_set.parseSpecCases(spec):
        print(case_id)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
