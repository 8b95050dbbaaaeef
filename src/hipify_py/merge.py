"""Merge the reports of ``--shard I/N`` runs into the report of the whole tree.

Shards split the files, so each file's findings, stale entries and failures are in exactly one
shard's report, already in the whole run's order among themselves.  Merging concatenates them
and restores the order across files (by path, the order ``check`` sorts in), adds up counts and
keeps what all shards agree on.  Three kinds of report are merged, recognized by their shape:
``check --format sarif``, ``check --format json`` and ``convert --json``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse


class MergeError(ValueError):
    """Reports that cannot be merged (one line)."""


def merge(docs: list[Any]) -> dict[str, Any]:
    """The merged report of ``docs`` (parsed JSON), all of one kind."""
    if not docs:
        raise MergeError("no reports to merge")
    if not all(isinstance(d, dict) for d in docs):
        raise MergeError("not a hipify-py report (expected a JSON object)")
    kinds = {_kind(d) for d in docs}
    if len(kinds) != 1:
        raise MergeError(f"reports of different kinds: {', '.join(sorted(kinds))}")
    if kinds == {"sarif"}:
        return _merge_sarif(docs)
    return _merge_value(docs, "")


def _kind(doc: dict[str, Any]) -> str:
    if isinstance(doc.get("runs"), list) and str(doc.get("version", "")).startswith("2."):
        return "sarif"
    if isinstance(doc.get("findings"), list) and isinstance(doc.get("summary"), dict):
        return "check json"
    if isinstance(doc.get("files"), dict) and "scanned" in doc["files"]:
        return "convert json"
    raise MergeError("not a hipify-py report (check --format json/sarif, or convert --json)")


def _merge_value(values: list[Any], key: str) -> Any:
    """Objects merge key by key, lists concatenate (in path order), counts add up; anything
    else (a format version, the tool) must be the same in every report."""
    first = values[0]
    if all(isinstance(v, dict) for v in values):
        keys = list(dict.fromkeys(k for v in values for k in v))
        merged = {k: _merge_value([v[k] for v in values if k in v], k) for k in keys}
        if all(list(v) == sorted(v) for v in values):  # a table by rule ID stays sorted
            return dict(sorted(merged.items()))
        return merged
    if all(isinstance(v, list) for v in values):
        return _by_path([item for v in values for item in v], lambda item: item.get("path"))
    if key != "version" and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return sum(values)
    if any(v != first for v in values):
        raise MergeError(f"the reports differ in {key or 'their format'!r}: {first!r} / {values}")
    return first


def _by_path(items: list[Any], path_of: Callable[[Any], str | None]) -> list[Any]:
    """``items`` stably sorted by path: each file's items keep their order."""
    if not all(isinstance(i, dict) and isinstance(path_of(i), str) for i in items):
        return items
    return sorted(items, key=lambda i: path_of(i) or "")  # every path is a str here


def _merge_sarif(docs: list[dict[str, Any]]) -> dict[str, Any]:
    runs = []
    for doc in docs:
        if len(doc["runs"]) != 1:
            raise MergeError("a SARIF report with more than one run")
        runs.append(doc["runs"][0])
    merged = copy.deepcopy(docs[0])
    run = merged["runs"][0]
    try:
        rules: dict[str, Any] = {}
        by_use: set[str] = set()  # described by a shard that reported it, as check does
        for shard in runs:
            used = {res["ruleId"] for res in shard["results"]}
            for rule in shard["tool"]["driver"]["rules"]:
                rule_id = rule["id"]
                if rule_id not in rules or (rule_id in used and rule_id not in by_use):
                    rules[rule_id] = rule
                    if rule_id in used:
                        by_use.add(rule_id)
        ids = sorted(rules)
        index = {rule_id: i for i, rule_id in enumerate(ids)}
        results = copy.deepcopy([res for shard in runs for res in shard["results"]])
        for res in results:
            res["ruleIndex"] = index[res["ruleId"]]
        run["tool"]["driver"]["rules"] = [rules[i] for i in ids]
        run["results"] = _by_path(results, _result_path)
        notes = [n for shard in runs for inv in shard["invocations"] for n in _notes(inv)]
        ok = all(inv["executionSuccessful"] for shard in runs for inv in shard["invocations"])
    except (KeyError, TypeError, IndexError) as exc:
        raise MergeError(f"not a hipify-py SARIF report (missing {exc})") from None
    invocation: dict[str, Any] = {"executionSuccessful": ok}
    if notes:
        invocation["toolExecutionNotifications"] = sorted(notes, key=lambda n: n["message"]["text"])
    run["invocations"] = [invocation]
    return merged


def _notes(invocation: dict[str, Any]) -> list[dict[str, Any]]:
    return list(invocation.get("toolExecutionNotifications", []))


def _result_path(result: dict[str, Any]) -> str | None:
    """The path a SARIF result was reported at, as ``check`` sorted it."""
    try:
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    except (KeyError, IndexError, TypeError):
        return None
    if not isinstance(uri, str):
        return None
    if uri.startswith("file:"):
        return unquote(urlparse(uri).path)
    return unquote(uri)
