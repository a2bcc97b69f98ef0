"""Shared supports of never-proofs (issue 44, item 2): a never entry's ``rows`` written
``{"as": L}``, the rows list of the earlier never entry of label L in the same domain
(certificates/SPEC.md section 9).

The head: the simplex 0..3 in R^3 and labels planted inside it, each proven never argmax by
its barycentric coordinates on the simplex's four rows (one support, as clustered
under-trained tokens share one), with one label on an edge (another support) in between.
The records are built here, so the supports are the ones the test means; the engine's
writer (:func:`logitgeom.audit.shards.share_rows`) turns repeated supports into references,
and the stdlib checker must accept exactly what it accepts with the lists written out.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from logitgeom.audit import audit_argmax
from logitgeom.audit.report import table_rows
from logitgeom.audit.shards import expand_rows, share_rows
from logitgeom.certify.audit import audit_certificate
from logitgeom_certificates import _cli, check_audit
from logitgeom_certificates.api import check

SIMPLEX = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, -1, -1)]
#: planted label -> (rows, multipliers): sum c_i (w_k - w_i) = 0 with c > 0
PLANTED = {4: ([0, 1, 2, 3], [1, 1, 1, 1]), 5: ([0, 1, 2, 3], [1, 2, 3, 4]),
           6: ([0, 1, 2, 3], [4, 3, 2, 1]), 7: ([0, 1], [1, 1]),
           8: ([0, 1, 2, 3], [2, 1, 1, 1]), 9: ([0, 1, 2, 3], [1, 1, 2, 1])}
DOMAINS = ("all", "box")


def _point(rows, c):
    return tuple(sum(Fraction(ci) * SIMPLEX[i][j] for i, ci in zip(rows, c, strict=True))
                 / sum(c) for j in range(3))


def _head() -> list[list[str]]:
    W = [tuple(map(Fraction, v)) for v in SIMPLEX] + [_point(*PLANTED[k]) for k in sorted(PLANTED)]
    return [[str(x) for x in r] for r in W]


def _records() -> list[dict]:
    recs = []
    for k in range(len(SIMPLEX) + len(PLANTED)):
        if k < len(SIMPLEX):  # a vertex: the strict argmax at x = w_k (inside the box R = 1)
            e = {"verdict": "argmaxable", "witness": {"scale": "1"}, "stage": "row"}
        else:
            rows, c = PLANTED[k]
            e = {"verdict": "never", "rows": list(rows), "multipliers": [str(x) for x in c],
                 "stage": "exact"}
        recs.append({"label": k, **{dom: copy.deepcopy(e) for dom in DOMAINS}})
    return recs


def _cert(records: list[dict]) -> dict:
    counts = {dom: {"argmaxable": 4, "never": len(PLANTED), "undecided": 0} for dom in DOMAINS}
    return audit_certificate(head={"W": _head()}, rows=10, cols=3, domains=DOMAINS,
                             labels=list(range(10)), counts=counts, radius="1", records=records)


@pytest.fixture
def shared() -> dict:
    return _cert(share_rows(_records()))


def _entry(c: dict, label: int, dom: str = "all") -> dict:
    return c["records"][label][dom]


# ----------------------------------------------------------------------- the writer
def test_writer_refers_to_the_most_recent_list_of_the_same_support():
    recs = _records()
    before = copy.deepcopy(recs)
    out = share_rows(recs)
    assert recs == before  # the input is not changed
    for dom in DOMAINS:
        got = {r["label"]: r[dom]["rows"] for r in out if r[dom]["verdict"] == "never"}
        # 4 lists the simplex, 5 and 6 name it; 7 is an edge; 8 lists the simplex again (the
        # most recent list, 7's, is another support) and 9 names 8
        assert got == {4: [0, 1, 2, 3], 5: {"as": 4}, 6: {"as": 4}, 7: [0, 1],
                       8: [0, 1, 2, 3], 9: {"as": 8}}
    assert expand_rows(copy.deepcopy(out)) == recs
    assert share_rows(out) == out  # records given with references: the same output


def test_writer_output_is_byte_identical_for_identical_input():
    a, b = (json.dumps(_cert(share_rows(_records())), sort_keys=True) for _ in range(2))
    assert a == b


def test_table_counts_the_rows_of_a_reference():
    rows = table_rows(share_rows(_records()), {}, {}, DOMAINS)
    assert [r["proof"] for r in rows[4:]] == ["gordan:4", "gordan:4", "gordan:4", "gordan:2",
                                              "gordan:4", "gordan:4"]


# ---------------------------------------------------------------------- the checker
def test_with_and_without_references_accepted_identically(shared):
    explicit = _cert(_records())
    assert '"as"' in json.dumps(shared) and '"as"' not in json.dumps(explicit)
    v1, v2 = check(shared, None), check(explicit, None)
    assert v1.ok and v2.ok, (v1, v2)
    # the same proofs, the same work: the support's rows are converted once either way
    a, b = check(shared, 10 ** 9), check(explicit, 10 ** 9)
    assert a.ok and a.work == b.work


def _refer(label, target, dom="all"):
    return lambda c: _entry(c, label, dom).__setitem__("rows", {"as": target})


def _undecided_in_box(c):  # label 4 undecided in the box; its list stays in domain all
    c["records"][4]["box"] = {"verdict": "undecided", "reason": "budget"}
    c["counts"]["box"].update(never=len(PLANTED) - 1, undecided=1)


@pytest.mark.parametrize("change, failed", [
    (_refer(5, 6), "gordan-support"),  # a later label
    (_refer(5, 5), "gordan-support"),  # itself
    (_refer(5, 42), "gordan-support"),  # no label of the audit
    (_refer(5, 0), "gordan-support"),  # an argmaxable label
    (_refer(9, 6), "gordan-support"),  # a chain: 6 names 4
    (lambda c: (_undecided_in_box(c), _refer(5, 4, "box")(c)), "gordan-support"),  # other domain
    (lambda c: _entry(c, 5)["multipliers"].__setitem__(0, "2"), "gordan-combination"),
    (lambda c: _entry(c, 9, "box")["multipliers"].__setitem__(3, "2"), "gordan-combination"),
    (lambda c: _entry(c, 5)["multipliers"].pop(), "shape"),
    (lambda c: _entry(c, 5).__setitem__("rows", {"as": 4, "also": [0]}), "schema"),
    (lambda c: _entry(c, 5).__setitem__("rows", {"as": "4"}), "schema"),
    (lambda c: _entry(c, 5).__setitem__("rows", {"from": 4}), "schema"),
])
def test_tampering_with_references_is_rejected(shared, change, failed):
    assert check(shared, None).ok
    change(shared)
    v = check(shared, None)
    assert not v.ok and v.failed_check == failed, v
    if failed == "gordan-support":
        assert "/rows/as" in v.location and "no earlier label" in v.message, v


def test_a_referenced_list_holding_the_label_itself_is_rejected():
    """Label 4's proof on rows [0, 1, 2, 5] (3 w_0 + 2 w_1 + w_2 + 10 w_5 = 0 = 16 w_4):
    valid for 4, but label 5 naming it would have itself in its support."""
    recs = _records()
    for dom in DOMAINS:
        recs[4][dom].update(rows=[0, 1, 2, 5], multipliers=["3", "2", "1", "10"])
    c = _cert(recs)
    assert check(c, None).ok
    for dom in DOMAINS:
        _entry(c, 5, dom)["rows"] = {"as": 4}
    v = check(c, None)
    assert not v.ok and v.failed_check == "gordan-support" and v.location == "/records/5/all/rows"


def _gordan_holds(k: int, rows, c) -> bool:
    """sum c_i (w_k - w_i) = 0 with c > 0 on distinct rows without k (no bias, any box),
    decided here in Fractions, independently of the checker."""
    W = [[Fraction(x) for x in r] for r in _head()]
    return len(rows) == len(c) == len(set(rows)) and k not in rows and all(
        sum(Fraction(ci) * (W[k][j] - W[i][j]) for i, ci in zip(rows, c, strict=True)) == 0
        for j in range(3))


def test_random_references_accepted_exactly_when_they_name_a_listed_support():
    """Seeded trials: a never entry's rows replaced by {"as": L}, L random (earlier, later,
    itself, argmaxable, a reference, off the audit), in one domain; the checker accepts
    exactly when every reference then names an earlier never entry of its domain that lists
    rows on which the referring entry's own multipliers are a Gordan proof."""
    import random

    def valid(c) -> bool:
        for dom in DOMAINS:
            lists: dict[int, list] = {}
            for r in c["records"]:
                e, k = r[dom], r["label"]
                if e["verdict"] != "never":
                    continue
                if isinstance(e["rows"], list):
                    lists[k] = e["rows"]
                elif e["rows"]["as"] not in lists or not _gordan_holds(
                        k, lists[e["rows"]["as"]], e["multipliers"]):
                    return False
        return True

    rng = random.Random(44)
    accepted = 0
    for _ in range(300):
        c = _cert(share_rows(_records()))
        k, dom, L = rng.choice(sorted(PLANTED)), rng.choice(DOMAINS), rng.randrange(-1, 12)
        _entry(c, k, dom)["rows"] = {"as": L}
        ok = valid(c)
        v = check(c, None)
        assert v.ok == ok and (ok or v.failed_check in ("gordan-support", "gordan-combination",
                                                         "shape", "schema")), (k, dom, L, v)
        accepted += v.ok
    assert 5 < accepted < 295  # both outcomes drawn (12 of 300 accepted with this seed)


def _write(tmp_path, cert) -> str:
    p = tmp_path / "audit.json"
    p.write_text(json.dumps(cert))
    return str(p)


def test_labels_mode_resolves_references_of_every_record(tmp_path, shared):
    path = _write(tmp_path, shared)
    assert check_audit.check_file(path, labels=[6]).ok  # 6 names 4, whose proof is not chosen
    c = copy.deepcopy(shared)
    _entry(c, 4)["multipliers"][0] = "2"  # a wrong proof outside the chosen labels
    assert check_audit.check_file(_write(tmp_path, c), labels=[6]).ok
    assert check_audit.check_file(_write(tmp_path, c), labels=[4]).failed_check == \
        "gordan-combination"
    c = copy.deepcopy(shared)
    _entry(c, 6)["multipliers"][0] = "5"  # the chosen label's multipliers, under 4's support
    assert check_audit.check_file(_write(tmp_path, c), labels=[6]).failed_check == \
        "gordan-combination"
    _refer(9, 6)(c)  # a chain outside the chosen labels: the structure of every record
    v = check_audit.check_file(_write(tmp_path, c), labels=[7])
    assert v.failed_check == "gordan-support" and v.location == "/records/9/all/rows/as"


def test_sample_mode_checks_every_never_proof_under_a_reference(tmp_path, shared):
    tally: dict = {}
    assert check_audit.check_file(_write(tmp_path, shared), sample=1, scope=tally).ok
    assert tally["checked"] == 2 and tally["witnesses"] == 8  # one witness per domain
    _entry(shared, 9, "box")["multipliers"][0] = "3"
    v = check_audit.check_file(_write(tmp_path, shared), sample=1)
    assert v.failed_check == "gordan-combination" and v.location == "/records/9/box"


def test_workers_blocks_resolve_references_across_blocks(tmp_path, shared, capsys):
    """``--workers 2``: blocks of labels in separate processes, each reading every record (a
    block holding label 9 but not 8 still knows 8's rows)."""
    path = _write(tmp_path, shared)
    assert _cli.audit_main([path, "--workers", "2"], check_audit.check_file) == 0
    assert "every proof" in capsys.readouterr().out
    _refer(6, 5)(shared)  # a chain
    code = _cli.audit_main([_write(tmp_path, shared), "--workers", "2"], check_audit.check_file)
    assert code == 1 and "failed_check=gordan-support" in capsys.readouterr().out


def test_the_support_is_converted_once_for_consecutive_labels():
    """On a head over 2^22 entries (no row cache) the rows of a support are converted once
    for consecutive never-proofs on it, and only the labels' own rows again."""
    calls: list[int] = []
    k, d = 1 << 21, 3  # k d > 2^22: the row cache is off; rows are made on demand

    def W(i):
        calls.append(i)
        return [float(i % 7), 1.0, -0.5]

    M = check_audit._Model(W, k, d, None)
    for label in (10, 11, 12):
        M.gordan_rows(label, (0, 1, 2, 3))
    assert sorted(calls) == [0, 1, 2, 3, 10, 11, 12]
    M.gordan_rows(13, (0, 1, 2, 5))  # another support: converted (one support at a time)
    M.gordan_rows(14, (0, 1, 2, 3))
    assert sorted(calls[7:]) == [0, 0, 1, 1, 2, 2, 3, 5, 13, 14]


# ----------------------------------------------------------------------- the engine
def test_engine_writes_references_inline_and_in_shards(tmp_path):
    """The SPEC example (a diamond and its centre, bias 1/2, R = 1/4): in the box, labels
    0-3 are never argmax on the same support (row 4); labels 1-3 name label 0's."""
    from logitgeom.audit.examples import EXAMPLE_BIAS, EXAMPLE_W

    r = audit_argmax(EXAMPLE_W, bias=EXAMPLE_BIAS, radius="1/4", progress=False)
    recs = r.certificate()["records"]
    assert [e["box"]["rows"] for e in recs[:4]] == [[4], {"as": 0}, {"as": 0}, {"as": 0}]
    assert all(isinstance(e["box"].get("rows", []), list) for e in r.records)  # in memory
    assert check(r.certificate()).ok
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        audit_argmax(EXAMPLE_W, bias=EXAMPLE_BIAS, radius="1/4", progress=False, out=out)
    shard = [(o / "shards" / "block-000000.jsonl").read_bytes() for o in outs]
    assert shard[0] == shard[1] and shard[0].count(b'"rows":{"as":0}') == 3
    assert check_audit.check_file(outs[0] / "audit.json").ok
    # resume: the block is read back with its lists and written again, byte for byte
    (outs[0] / "shards" / "block-000000.jsonl").unlink()
    audit_argmax(EXAMPLE_W, bias=EXAMPLE_BIAS, radius="1/4", progress=False, out=outs[0])
    assert (outs[0] / "shards" / "block-000000.jsonl").read_bytes() == shard[1]


def test_coq_export_reads_references_as_their_lists():
    from logitgeom.coq.export import export_certificate

    texts = [export_certificate(_cert(recs), "audit", witnesses=False)[1].splitlines()
             for recs in (share_rows(_records()), _records())]
    # the same theorems; only the header's SHA-256 of the certificate's JSON differs
    assert [x for x in texts[0] if "SHA-256" not in x] == \
        [x for x in texts[1] if "SHA-256" not in x]
    assert "never_list_sound" in "\n".join(texts[0])
