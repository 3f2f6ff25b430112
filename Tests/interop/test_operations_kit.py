"""The operator's kit in config/: the Prometheus alert rules pass `promtool check rules` and their unit tests on
synthetic series (`promtool test rules`), and every metric the rules and the Grafana dashboard query is one that
gateways expose: read from the `/metrics` of a gateway with a store and a webhook endpoint, and of a cluster node.
"""

import json
import re
import shutil
import subprocess
import urllib.request

import yaml
from prometheus_client.parser import text_string_to_metric_families
from test_call_end_to_end import PROJECT_ROOT, rollcall  # noqa: F401 (the fixture)
from test_cluster import redis  # noqa: F401 (the fixture)

PROMETHEUS = PROJECT_ROOT / "config" / "prometheus"
RULES = PROMETHEUS / "rollcall-rules.yml"
DASHBOARD = PROJECT_ROOT / "config" / "grafana" / "rollcall-dashboard.json"
# Series that come from Prometheus itself and the blackbox exporter, not from the gateway.
NOT_THE_GATEWAYS = {"up", "probe_success"}


def promtool(*arguments):
    binary = shutil.which("promtool")
    assert binary, "promtool is missing: scripts/install-test-deps.sh installs Debian's prometheus package"
    result = subprocess.run([binary, *arguments], cwd=PROMETHEUS, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def metric_names(expression):
    """The metric names a PromQL expression reads (label names, functions and `by` lists left out)."""
    without_labels = re.sub(r"\{[^}]*\}", "", expression)
    without_grouping = re.sub(r"\b(by|without)\s*\([^)]*\)", "", without_labels)
    return {name for name in re.findall(r"\b[a-z_][a-z0-9_]*\b(?!\s*\()", without_grouping)
            if name.startswith(("rollcall_", "up", "probe_"))}


def exposed(server):
    origin = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]
    with urllib.request.urlopen(f"{origin}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {sample.name for family in text_string_to_metric_families(text) for sample in family.samples}


def test_the_rules_pass_promtool_check_and_their_unit_tests():
    assert "SUCCESS: 10 rules found" in promtool("check", "rules", RULES.name)
    assert "SUCCESS" in promtool("test", "rules", "rollcall-rules.test.yml")


def test_every_metric_the_rules_and_the_dashboard_query_is_exposed(rollcall, redis, tmp_path):
    single = rollcall(**{"storage.path": str(tmp_path / "rollcall.db"),
                         "webhooks.endpoint.billing.url": "http://127.0.0.1:9/hooks",
                         "webhooks.endpoint.billing.secret": "webhook-secret-0123456789"})
    node = rollcall(**{"cluster.redis_url": redis.url})
    available = exposed(single) | exposed(node)

    rules = [rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]]
    in_rules = set().union(*(metric_names(rule["expr"]) for rule in rules))
    dashboard = json.loads(DASHBOARD.read_text())
    queries = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    queries += [variable["query"] for variable in dashboard["templating"]["list"] if variable["type"] == "query"]
    in_dashboard = set().union(*(metric_names(query) for query in queries))

    assert len(in_dashboard) >= 20 and len(in_rules - NOT_THE_GATEWAYS) >= 6
    assert in_rules - NOT_THE_GATEWAYS - available == set()
    assert in_dashboard - available == set()
    assert {panel["id"] for panel in dashboard["panels"]} == set(range(1, len(dashboard["panels"]) + 1))
