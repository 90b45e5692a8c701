"""The secret scan against a corpus assembled at test time (tests/secret_corpus.py): at least
95 % of the planted variants caught (each kind in a context file and in the topic, with CRLF,
indentation, quoting, case changes, control and zero-width characters inside), and not one
of the benign files flagged. Also: the secrets files refused by name, after normalising the
path, and a symlink by its target's name."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from collab.secret_scan import find_secrets, sensitive_name
from tests.secret_corpus import Benign, Variant, benign, variants


@functools.cache
def corpus() -> tuple[list[Variant], list[Benign]]:
    """The planted variants and the benign files, built once, when a test first needs them
    (not at import: ~30 ms of every collection)."""
    return variants(), benign()


def _missed(vs: list[Variant]) -> list[str]:
    """The variants no finding names: all scanned in one call, each under a label of its own."""
    contexts = [(f"v{i}/{v.path}", v.text) for i, v in enumerate(vs) if v.where == "context"]
    topics = [(f"topic{i}", v.text) for i, v in enumerate(vs) if v.where == "topic"]
    found = find_secrets("A topic", contexts, others=topics)
    named = {f.where.removeprefix("context file ").split(":")[0].split(" line ")[0] for f in found}
    labels = [f"v{i}/{v.path}" if v.where == "context" else f"topic{i}" for i, v in enumerate(vs)]
    return [v.test_id for v, label in zip(vs, labels, strict=True) if label not in named]


def _flagged(files: list[Benign]) -> list[str]:
    found = find_secrets("A topic", [(f"b{i}/{b.path}", b.text) for i, b in enumerate(files)])
    return sorted({f.message for f in found})


def test_the_corpus_is_as_big_as_promised() -> None:
    VARIANTS, BENIGN = corpus()
    assert len(VARIANTS) >= 80 and len(BENIGN) >= 80
    assert sum(len(b.text.encode()) for b in BENIGN) >= 200_000
    assert {v.where for v in VARIANTS} == {"context", "topic"}
    kinds = {v.test_id.split("-plain")[0] for v in VARIANTS if "-plain-" in v.test_id}
    assert len(kinds) >= 20


def test_at_least_95_percent_of_the_variants_are_caught(capsys: pytest.CaptureFixture[str]) -> None:
    VARIANTS, _ = corpus()
    missed = _missed(VARIANTS)
    rate = 1 - len(missed) / len(VARIANTS)
    with capsys.disabled():
        print(f"\nsecret corpus: {len(VARIANTS) - len(missed)}/{len(VARIANTS)} caught "
              f"({rate:.1%})")  # fmt: skip
    assert rate >= 0.95, missed


def test_no_benign_file_is_flagged(capsys: pytest.CaptureFixture[str]) -> None:
    _, BENIGN = corpus()
    flagged = _flagged(BENIGN)
    with capsys.disabled():
        size = sum(len(b.text.encode()) for b in BENIGN)
        print(f"\nbenign corpus: {len(flagged)} findings in {len(BENIGN)} files, {size:,} bytes")
    assert flagged == []


@pytest.mark.parametrize("transform", ["zero-width", "soft-hyphen", "ansi"])
def test_a_key_split_by_an_invisible_character_is_caught(transform: str) -> None:
    """The prompt gets the cleaned text, which joins such a key up again: both are scanned."""
    VARIANTS, _ = corpus()
    vs = [v for v in VARIANTS if f"-{transform}-" in v.test_id and "github-classic" in v.test_id]
    assert vs and _missed(vs) == []


@pytest.mark.parametrize(
    "path",
    ["secrets.yaml", "config/secrets.yml", ".envrc", "service-account.json",
     "gcp/service_account-prod.json", ".npmrc", "terraform.tfstate", "terraform.tfstate.backup",
     ".vault-token", "kubeconfig", "home/.kube/config", "home/.docker/config.json",
     ".env/.", "./.env", "a/../.env", "NOTES/../.ENVRC"],
)  # fmt: skip
def test_secrets_files_are_refused_by_name(path: str) -> None:
    assert sensitive_name(path) is not None


@pytest.mark.parametrize(
    "path",
    [".env.sample", ".env.template", ".env.dist", ".env.defaults", ".env.example",
     "config.json", "docs/config", "kube/deploy.yaml", "account.json", "tfstate.md"],
)  # fmt: skip
def test_ordinary_and_placeholder_files_are_not_refused_by_name(path: str) -> None:
    assert sensitive_name(path) is None


def test_a_symlink_is_refused_by_its_targets_name(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("LOG_LEVEL=info\n", encoding="utf-8")
    (tmp_path / "notes.md").symlink_to(tmp_path / ".env")
    found = find_secrets("A topic", [(str(tmp_path / "notes.md"), "LOG_LEVEL=info\n")])
    assert [f.what for f in found] == ["named like a dotenv file"]


@pytest.mark.parametrize(
    "path",
    [Path(__file__), Path(__file__).parents[1] / "secret_corpus.py"],
    ids=["this-test-file", "corpus-builder"],
)  # fmt: skip
def test_the_corpus_plants_no_secret_in_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert find_secrets("A topic", [(path.name, text)]) == []
