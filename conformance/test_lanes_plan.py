"""How the GPU cases are cut into jobs for the lanes (`ptxconf.app.lanes`), before any GPU is asked:
every case in exactly one job, the cases the plan marks as faulting on purpose each a job of
its own and among the first, each variant module one job, jobs spread over the GPUs."""

from __future__ import annotations

from collections import Counter

import pytest

from ptxconf.app import lanes as L
from ptxconf.app.providers import REGISTRY
from ptxconf.gpu import plan as P
from ptxconf.gpu.families.sweep import module_of
from ptxconf.oracle.spec import default_spec

SPEC = default_spec()
GPU_PROVIDERS = [p for p in REGISTRY if p.gpu]


@pytest.fixture(scope="module")
def groups() -> list[tuple[str, tuple[str, ...]]]:
    return L.job_groups(SPEC, GPU_PROVIDERS, lambda _: True)


def _all_ids() -> list[str]:
    return [i for p in GPU_PROVIDERS for i in (p.case_ids(SPEC) or [])]


def test_every_gpu_case_is_in_exactly_one_job(groups) -> None:
    listed = _all_ids()
    assert len(listed) > 2000, "the whole GPU sweep is listed without a GPU"
    counts = Counter(i for _, ids in groups for i in ids)
    assert set(counts) == set(listed)
    assert max(counts.values()) == 1


def test_a_selection_keeps_only_its_cases(groups) -> None:
    picked = L.job_groups(SPEC, GPU_PROVIDERS, lambda i: i.startswith("gpu.wmma."))
    ids = [i for _, g in picked for i in g]
    assert ids
    assert all(i.startswith("gpu.wmma.") for i in ids)
    assert len(ids) == sum(i.startswith("gpu.wmma.") for _, g in groups for i in g)


def test_the_cases_that_may_fault_are_marked_by_the_plan_and_run_alone_early(groups) -> None:
    faulting = P.may_fault_ids(SPEC)
    assert faulting, "the wmma alignment probes fault on purpose"
    assert all(i.startswith(P.CHECK_WMMA_ALIGN + "[") for i in faulting)
    assert faulting == {p.id for p in P.wmma_plan(SPEC) if p.check == P.CHECK_WMMA_ALIGN}
    jobs_with = [n for n, (_, ids) in enumerate(groups) if faulting & set(ids)]
    assert all(len(groups[n][1]) == 1 for n in jobs_with), "each one a job of its own"
    ordinary = [n for n, (name, ids) in enumerate(groups)
                if name != "gpu-hypotheses" and not faulting & set(ids)]
    assert max(jobs_with) < min(ordinary), "they start before the ordinary jobs"


def test_each_variant_module_is_one_job(groups) -> None:
    sweep = [ids for name, ids in groups if name == "gpu-sweep"]
    modules = [{module_of(SPEC, i) for i in ids} for ids in sweep]
    assert all(len(m) == 1 for m in modules)
    assert len({next(iter(m)) for m in modules}) == len(sweep) == len(P.plan(SPEC).wgmma_batches)


@pytest.mark.parametrize("gpus", [1, 2, 3])
def test_jobs_go_round_the_gpus(groups, gpus: int) -> None:
    jobs = L.place(groups, gpus)
    assert [j.device for j in jobs] == [n % gpus for n in range(len(groups))]
    assert [(j.provider, j.ids) for j in jobs] == list(groups)


def test_discovery_jobs_keep_order_and_put_heavy_cases_alone(monkeypatch) -> None:
    from ptxconf.gpu.families import discovery

    ids = [f"c{i}" for i in range(10)]
    costs = dict(zip(ids, [1.0, 1.0, 1.0, 1.0, 1.0, 50.0, 1.0, 1.0, 1.0, 1.0], strict=True))
    monkeypatch.setattr(discovery, "case_weight", lambda spec, i: costs[i])
    got = discovery.jobs(SPEC, ids, L.CHUNK)
    assert [i for g in got for i in g] == ids
    assert ("c5",) in got
    assert all(len(g) <= L.CHUNK for g in got)
    assert discovery.jobs(SPEC, [], L.CHUNK) == []


def test_the_lanes_name_no_provider() -> None:
    """Jobs are planned by the providers (Provider.plan_jobs / weigh_job): the lanes' code
    never branches on a provider's name."""
    import inspect

    source = inspect.getsource(L)
    assert not [name for name in ("gpu-sweep", "gpu-discovery", "gpu-hypotheses", "gpu-wmma")
                if name in source]


def test_the_heaviest_discovery_maps_are_jobs_of_their_own(groups) -> None:
    from ptxconf.gpu.families.discovery import case_weight

    disc = [ids for name, ids in groups if name == "gpu-discovery"]
    weights = sorted((case_weight(SPEC, i), i) for ids in disc for i in ids)
    heaviest = {i for _, i in weights[-8:]}
    assert all(".b1." in i for i in heaviest), "the 1-bit maps of the widest tiles"
    assert all(len(ids) == 1 for ids in disc if heaviest & set(ids))
