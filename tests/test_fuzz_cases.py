"""Structure-aware fuzzing of the case JSON (RULES.md D-C6): mutate real cases, change types, nest deeply, use
huge numbers and long strings. No input may raise; every malformed case is the one-line invalid_input object."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import RULESETS, score_case
from scoring.__main__ import score_text
from scoring.generate import random_case
from tests.helpers import SHARED

EXAMPLES = SHARED / "rules" / "examples.json"
SEEDS: list[dict[str, Any]] = [c for c in (json.loads(EXAMPLES.read_text())["cases"] if EXAMPLES.exists() else [])]
SEEDS += [random_case(random.Random(i), rs, True) for i in range(20) for rs in RULESETS]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 50), st.integers(-(10**40), 10**40), st.floats(allow_nan=True),
    st.text(max_size=8), st.text(min_size=990, max_size=1100), st.sampled_from(["1m", "E", "f1", "G", "C", "back",
                                                                                  "kong", "added", "pung", "0"]),
)
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                       st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                      max_leaves=12)


def paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value inside a case."""
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, prefix + (i,))
    return out


def deep(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = [v]
    return v


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    case = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 3))):
        ps = paths(case)
        path = draw(st.sampled_from(ps))
        how = draw(st.sampled_from(["replace", "delete", "deep", "huge", "add", "ruleset"]))
        new: Any
        if how == "deep":
            new = deep(draw(st.integers(60, 70)))
        elif how == "huge":
            new = draw(st.sampled_from([10**29, -(10**29), 2**63, 10**30, 1e308, -1e308]))
        elif how == "ruleset":
            new = draw(st.sampled_from(list(RULESETS)))
            path = ("ruleset",)
        else:
            new = draw(values)
        if not path:
            case = new if how == "replace" else case
            continue
        parent = case
        for k in path[:-1]:
            parent = parent[k]
        key = path[-1]
        if not isinstance(parent, (dict, list)) or (isinstance(parent, list) and not isinstance(key, int)):
            continue
        if how == "delete" and (isinstance(parent, list) or key in parent):
            del parent[key]
        elif how == "add" and isinstance(parent, dict):
            parent[draw(st.sampled_from(["after_kong", "heavenly", "earthly", "kong_events", "robbed", "chain",
                                         "bloom_kong", "other_melds", "penalty_events", "fish_tiles"]))] = new
        else:
            parent[key] = new
    return case


FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(mutated())
def test_a_mutated_case_never_raises_and_malformed_is_one_clear_line(case: Any) -> None:
    r = score_case(case)  # raises on any bug: only InputError is turned into invalid_input
    assert isinstance(r, dict) and isinstance(r["valid"], bool)
    if r.get("error") == "invalid_input":
        assert set(r) == {"valid", "error", "message"} and 0 < len(r["message"]) < 400, r
    line = json.dumps(r, ensure_ascii=False)
    assert "\n" not in line


@FUZZ
@given(mutated(), st.integers(0, 3))
def test_the_cli_text_path_never_raises(case: Any, cut: int) -> None:
    try:
        text = json.dumps(case)
    except (ValueError, RecursionError):
        return
    if cut:  # truncated or garbled text
        text = text[: len(text) * cut // 4] + "\x00}" * (cut % 2)
    code, out = score_text(text)
    assert code in (0, 2)
    if code == 2 and isinstance(out, dict):
        assert out["error"] == "invalid_input" and len(out["message"]) < 400


@given(st.integers(65, 5000), st.sampled_from(["[", '{"a":']))
@settings(max_examples=25, deadline=None)
def test_deep_text_is_refused_before_parsing(depth: int, opener: str) -> None:
    closer = "]" if opener == "[" else "}"
    code, out = score_text(opener * depth + "1" + closer * depth)
    assert code == 2 and "nested deeper than 64" in out["message"]
