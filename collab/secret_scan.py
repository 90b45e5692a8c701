"""Secrets never leave by accident: scan the topic and context files before a debate starts.

Everything in a context file (and the topic) is sent to a model provider. Before anything is
sent, the text goes through the detect-secrets engine (the maintained ``bc-detect-secrets``
fork, imported as ``detect_secrets``), in-process and without temporary files:

- its key-format detectors (AWS, Azure storage, Artifactory, basic auth in URLs, Cloudant,
  Discord, GitHub, IBM, JWT, Mailchimp, NPM, private keys, SendGrid, Slack, SoftLayer, Square,
  Stripe, Twilio, and whatever else the installed version ships), and
- its ``KeywordDetector`` (``PASSWORD=...``, ``api_key: ...``, ``token = "..."``),
- the detectors it lacks, added through its plugin mechanism (:mod:`collab.secret_plugins`:
  OpenAI, Anthropic, Google, GitLab, Hugging Face, fine-grained GitHub tokens, bearer
  headers, PEM keys in every spelling, kubeconfig and docker credentials, ``PASS=``), with
  a placeholder filter of ours next to the engine's filters,

but never its entropy heuristics (``Base64HighEntropyString``, ``HexHighEntropyString``), which
flag every hash and commit id, and never its network verification (a candidate secret is never
sent anywhere to check it). The engine's own false-positive filters stay on: templated values
(``${PW}``, ``{{ pw }}``, ``<pw>``), ``$VAR`` references, function calls, UUIDs, sequential
strings, ``*****``, and lines marked ``# pragma: allowlist secret``.

Both the text as given and the text as it would be sent (cleaned: a zero-width space or an
escape inside a key would otherwise hide it) are scanned.

A hit is reported by source, line and kind (the detector's name); the secret itself is never
kept or shown. Files named like secrets files are refused by name (:func:`sensitive_name`).
``--allow-secrets`` overrides both, knowingly.

This module only computes and raises; it never prints.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from collab.errors import InputRefused
from collab.lazy import deferred, postponed_annotations
from collab.secret_words import fold, needed_words
from collab.text import for_prompt

ALLOW_FLAG = "--allow-secrets"
TOPIC = "topic"

# What a person can do about a refusal, as the surface that refused it offers (one finding,
# several): the debate and batch command lines take --allow-secrets; MCP does not offer it
# (a person says it, per command); a follow-up question, a note or a decision is the
# person's own text, with nothing to override.
Remedy = Literal["flag", "command-line", "remove"]
_REMEDIES: dict[Remedy, tuple[str, str]] = {
    "flag": (f"pass {ALLOW_FLAG} to send it anyway", f"pass {ALLOW_FLAG} to send them anyway"),
    "command-line": (
        f"only collab debate's {ALLOW_FLAG}, on the command line, sends it",
        f"only collab debate's {ALLOW_FLAG}, on the command line, sends them",
    ),
    "remove": ("take it out and try again", "take them out and try again"),
}

# Detectors that guess from randomness alone (every sha256 and commit id looks random), and
# one that reports public IP addresses, which are not secrets (upstream detect-secrets has it).
_EXCLUDED_PLUGINS = frozenset(
    {"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"}
)
_PEM_PLUGIN = "PrivateKeyDetector"
_GENERIC_KINDS = frozenset({"Authorization Header", "Kubernetes Credential", "Password Assignment"})
_KEYWORD_PLUGIN = "KeywordDetector"
_AZURE_PLUGIN = "AzureStorageKeyDetector"

# The engine's own false-positive filters (detect_secrets.settings.Settings.clear), less the
# ones that judge a file by its name: we scan text, and its name is handled here.
_FILTERS = (
    "detect_secrets.filters.allowlist.is_line_allowlisted",
    "detect_secrets.filters.heuristic.is_sequential_string",
    "detect_secrets.filters.heuristic.is_potential_uuid",
    "detect_secrets.filters.heuristic.is_likely_id_string",
    "detect_secrets.filters.heuristic.is_templated_secret",
    "detect_secrets.filters.heuristic.is_prefixed_with_dollar_sign",
    "detect_secrets.filters.heuristic.is_indirect_reference",
    "detect_secrets.filters.heuristic.is_not_alphanumeric_string",
)
_LINE_VALUES = frozenset({"filename", "line", "context"})
_SECRET_VALUES = frozenset({"filename", "line", "context", "secret", "plugin"})

# The engine skips stripped lines shorter than this (detect_secrets.core.scan.MIN_LINE_LENGTH).
_MIN_LINE = 5

# KeywordDetector picks its assignment rules by file extension (detect_secrets.util.filetype).
# Extensions it knows keep their own rules. Prose, shell, dotenv files, unknown names and the
# topic get the Terraform rules: quoted values anywhere plus unquoted ``KEY=value``, so a
# ``.env`` line or an ``export TOKEN=...`` in a Markdown file is caught while prose such as
# "Password: at least 12 characters" is not. Source languages it does not know get the
# quotes-required JavaScript rules, so ``token = response.token;`` is not a hit.
_CODE_EXTENSIONS = frozenset(
    {
        ".ts", ".tsx", ".jsx", ".mjs", ".cjs", ".rb", ".rs", ".kt", ".kts", ".scala", ".h",
        ".hpp", ".cc", ".cxx", ".lua", ".dart", ".ex", ".exs", ".groovy", ".vue", ".svelte",
    }
)  # fmt: skip
_TEMPLATE_SUFFIXES = frozenset({"example", "sample", "template", "dist", "defaults"})

# The engine's plugins and settings are process-wide; one scan at a time.
_LOCK = threading.Lock()


@dataclass(frozen=True)
class SecretHit:
    """One possible secret: where it is and what kind, never the value itself."""

    source: str  # the file path as given, or "topic"
    line: int  # 1-based, as ``grep -n`` counts
    kind: str  # the detector's name, e.g. "AWS Access Key", "Private Key", "Secret Keyword"


@dataclass(frozen=True)
class Finding:
    """One reason not to send the inputs, ready for a one-line message."""

    where: str  # "context file docs/app.env:3", "context file .env", "topic line 1"
    what: str  # "looks like a secret: Secret Keyword", "named like a dotenv file"

    @property
    def message(self) -> str:
        return self.line("flag")

    def line(self, remedy: Remedy) -> str:
        return f"{self.where}: {self.what} (not sent; {_REMEDIES[remedy][0]})"


def scan_text(text: str, source: str) -> list[SecretHit]:
    """Possible secrets in ``text``, in line order; ``source`` is a path or ``"topic"``.

    The path only chooses the keyword rules by its extension (see ``_rules_name``); nothing is
    read from disk. One hit per line and kind.
    """
    with _engine() as engine:
        return engine.scan(text, source, {})


def sensitive_name(path: str) -> str | None:
    """Why a file with this name should not be sent, or None.

    Refused (case-insensitive, by the last path component): ``.env`` and ``.env.*``;
    SSH private keys ``id_rsa``, ``id_dsa``, ``id_ecdsa``, ``id_ed25519`` (with ``_sk`` and
    suffixes such as ``id_rsa_work``, but not ``*.pub``); ``*.pem``, ``*.key``, ``*.ppk``,
    ``*.p12``, ``*.pfx``, ``*.kdbx``; ``credentials*`` and ``.git-credentials``; ``.netrc``,
    ``_netrc``, ``.pgpass``, ``.pypirc``.

    Not refused: ``.env.example``, ``.env.sample``, ``.env.template``, ``.env.dist`` and
    ``.env.defaults``. They exist to be shared (they are committed to repositories) and a user
    asking a debate about configuration would rightly be annoyed to need ``--allow-secrets``
    for one, which would also switch the content scan off. Their content is still scanned,
    with the engine's rules for example files: a quoted value or a key in a known format is
    still a hit, a ``KEY=changeme`` placeholder is not. Names ending in ``.env`` (``app.env``)
    are not refused either; their content is scanned with the dotenv rules.
    Also refused: ``secrets.yaml``/``.yml``/``.json``, ``.envrc``, ``service-account*.json``,
    ``.npmrc``, ``terraform.tfstate`` (and its backups), ``.vault-token``, ``kubeconfig`` and
    ``.kube/config``, ``.docker/config.json``. The path is normalised first (``.env/.``).
    """
    norm = os.path.normpath(path.replace("\\", "/")).lower()
    name = os.path.basename(norm)
    parent = os.path.basename(os.path.dirname(norm))
    if name == ".env" or name.startswith(".env."):
        if name.rsplit(".", 1)[-1] in _TEMPLATE_SUFFIXES:
            return None
        return "a dotenv file"
    if re.fullmatch(r"id_(rsa|dsa|ecdsa|ed25519)(_sk)?([._-].*)?", name) and not name.endswith(
        ".pub"
    ):
        return "an SSH private key"
    ext = os.path.splitext(name)[1]
    by_ext = {
        ".pem": "a PEM key or certificate",
        ".key": "a key file",
        ".ppk": "a PuTTY private key",
        ".p12": "a PKCS#12 key store",
        ".pfx": "a PKCS#12 key store",
        ".kdbx": "a KeePass database",
    }
    if ext in by_ext:
        return by_ext[ext]
    if name.startswith("credentials") or name == ".git-credentials":
        return "a credentials file"
    if (parent, name) in ((".kube", "config"), (".docker", "config.json")):
        return f"a {parent[1:]} credentials file"
    if re.fullmatch(r"service[-_]?account.*\.json", name):
        return "a cloud service-account key"
    if name.startswith("terraform.tfstate"):
        return "a Terraform state file (it holds secrets in clear)"
    if re.fullmatch(r"secrets?\.(ya?ml|json|toml)", name):
        return "a secrets file"
    if name.startswith("kubeconfig"):
        return "a kube credentials file"
    by_name = {
        ".envrc": "a direnv file",
        ".npmrc": "an npm credentials file",
        ".vault-token": "a HashiCorp Vault login file",  # pragma: allowlist secret
        ".netrc": "a .netrc login file",
        "_netrc": "a .netrc login file",
        ".pgpass": "a PostgreSQL password file",
        ".pypirc": "a PyPI credentials file",
    }
    return by_name.get(name)


def find_secrets(
    topic: str,
    contexts: Sequence[tuple[str, str]],
    *,
    others: Sequence[tuple[str, str]] = (),
) -> list[Finding]:
    """Everything that stops a run, in input order.

    ``contexts`` are ``(path as given, text)`` pairs: each is refused by name
    (:func:`sensitive_name`) and scanned. ``others`` are further ``(label, text)`` pairs that
    go to the provider, such as custom role texts (``("--role-a", text)``); they are scanned
    like the topic and reported as ``<label> line <n>``.
    """
    out: list[Finding] = []
    with _engine() as engine:
        for label, text in [(TOPIC, topic), *others]:
            for hit in _both(engine, text, label):
                out.append(Finding(f"{label} line {hit.line}", _looks_like(hit.kind)))
        for path, text in contexts:
            reason = sensitive_name(path) or _target_name(path)
            if reason is not None:
                out.append(Finding(f"context file {path}", f"named like {reason}"))
            for hit in _both(engine, text, path):
                out.append(Finding(f"context file {path}:{hit.line}", _looks_like(hit.kind)))
    return out


def _both(engine: _Engine, text: str, source: str) -> list[SecretHit]:
    """The hits in the text as given and in the text as it would be sent: a zero-width
    space, soft hyphen or escape inside a key hides it from the first, and the prompt's
    cleaning joins it up again."""
    # The two texts differ on a few lines at most (a code fence in Markdown, a hidden
    # character): the second scan reuses the first one's answer for every line that reads
    # the same lines around it.
    seen: dict[tuple[int, tuple[str, ...]], list[str]] = {}
    hits = set(engine.scan(text, source, seen))
    sent = for_prompt(text, len(text) + 1)
    if sent != text:
        hits.update(engine.scan(sent, source, seen))
    return sorted(hits, key=lambda h: (h.line, h.kind))


def _target_name(path: str) -> str | None:
    """Why the file's resolved path is refused: a symlink's target (``notes.md`` -> ``.env``),
    or a name given relative to a refused directory (``config`` read from inside ``~/.kube``)."""
    return sensitive_name(os.path.realpath(os.path.expanduser(path)))


def check_inputs(
    topic: str,
    contexts: Sequence[tuple[str, str]],
    *,
    others: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """One line per finding, e.g. ``context file docs/app.env:3: looks like a secret: Secret
    Keyword (not sent; pass --allow-secrets to send it anyway)``; empty when all is clear."""
    return [f.message for f in find_secrets(topic, contexts, others=others)]


def summarize(findings: Sequence[Finding], *, limit: int = 3, remedy: Remedy = "flag") -> str:
    """All findings in one line: the first ``limit`` of them, then "and N more", then what
    the person can do (``remedy``: what the surface offers)."""
    if not findings:
        return ""
    if len(findings) == 1:
        return findings[0].line(remedy)
    shown = "; ".join(f"{f.where} ({_short(f.what)})" for f in findings[:limit])
    more = len(findings) - limit
    if more > 0:
        shown += f"; and {more} more"
    return (
        f"{len(findings)} possible secrets in the debate inputs, nothing was sent: {shown} "
        f"({_REMEDIES[remedy][1]})"
    )


def ensure_no_secrets(
    topic: str,
    contexts: Sequence[tuple[str, str]],
    *,
    others: Sequence[tuple[str, str]] = (),
    allow: bool = False,
    remedy: Remedy = "flag",
) -> None:
    """Raise one :class:`InputRefused` (a usage error, exit 2; ``refused`` is ``secret``)
    naming the findings, unless ``allow``.

    The validation path, the MCP server and batch call this before anything is sent;
    ``allow`` is ``--allow-secrets``; ``remedy``, what the message advises (see
    :data:`_REMEDIES`).
    """
    if allow:
        return
    findings = find_secrets(topic, contexts, others=others)
    if findings:
        raise InputRefused(summarize(findings, remedy=remedy), refused="secret")


def _looks_like(kind: str) -> str:
    return f"looks like a secret: {kind}"


def _short(what: str) -> str:
    return what.removeprefix("looks like a secret: ")


def _rules_name(source: str) -> str:
    """The name whose extension picks KeywordDetector's rules for this source.

    It starts with a NUL byte so that no plugin can open a real file by it: PrivateKeyDetector
    reads small files by name, and here only the given text is scanned.
    """
    _without_requests()
    from detect_secrets.util.filetype import FileType, determine_file_type

    name = os.path.basename(source).lower()
    ext = os.path.splitext(name)[1]
    if name.startswith(".env.") and name.rsplit(".", 1)[-1] in _TEMPLATE_SUFFIXES:
        ext = ".example"
    elif determine_file_type(name) is FileType.OTHER:
        ext = ".js" if ext in _CODE_EXTENSIONS else ".tf"
    return "\0collab-secret-scan" + ext


def _without_requests() -> None:
    """detect-secrets imports ``requests`` at the top of every plugin and filter module, for
    the verification step (``verify()``, the verification filter) that collab never runs:
    it would add ~16 MB to every debate's memory and ~0.1 s of CPU. It is deferred: loaded
    only if something uses it. One plugin module names ``requests.Response`` in a
    signature evaluated at import; it is imported with its annotations postponed."""
    deferred("requests")
    postponed_annotations("detect_secrets.plugins.ibm_cos_hmac")


@contextmanager
def _engine() -> Iterator[_Engine]:
    """The engine configured for one scan: our plugins and filters, nothing else. It is
    built once a process. While it scans, detect-secrets' process-wide settings hold the
    filters it was built with (the plugins read them while they scan: the verification
    filter must never be on); the filters outside are put back afterwards."""
    # Imported here, not at the top: the engine (detect-secrets, ~30 ms) is needed only
    # by the commands that scan, not by the quick ones that import this module.
    _without_requests()
    from detect_secrets.settings import get_settings

    with _LOCK:
        if not _BUILT:
            _BUILT.append(_build())
        filters, engine = _BUILT[0]
        # Not a transient_settings block per scan: entering and leaving one rebuilds the
        # settings, re-imports every filter module and re-executes collab.secret_plugins
        # (~2 ms a scan). The plugins read only the filters of the settings (whether the
        # verification filter is on); the settings' plugins are read only to build plugins.
        settings = get_settings()
        outside = settings.filters
        settings.filters = filters
        try:
            yield engine
        finally:
            settings.filters = outside


_BUILT: list[tuple[dict[str, Any], _Engine]] = []  # (the settings' filters, engine), made once


def _build() -> tuple[dict[str, Any], _Engine]:
    """The settings' filters of a scan and the engine they make (called under ``_LOCK``)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.settings import get_filters, get_plugins, get_settings, transient_settings

    # Ours (collab.secret_plugins), loaded through the engine's plugin mechanism: a file
    # path in ``plugins_used``, and its placeholder filter in ``filters_used``.
    from collab import secret_plugins

    path = secret_plugins.__file__
    mine = [
        name
        for name, cls in vars(secret_plugins).items()
        if isinstance(cls, type)
        and cls.__module__ == secret_plugins.__name__
        and not name.startswith("_")
    ]
    ours = [{"name": n, "path": "file://" + path} for n in mine]
    # The classes: the engine's, and every plugin class in our file (detect-secrets takes
    # them all from a file named by one entry, and executes the file again for each entry
    # naming it: one is enough).
    with transient_settings({"plugins_used": ours[:1]}):
        get_mapping_from_secret_type_to_class.cache_clear()
        names = sorted(
            cls.__name__
            for cls in get_mapping_from_secret_type_to_class().values()
            if cls.__name__ not in _EXCLUDED_PLUGINS and cls.__name__ not in mine
        )
    config: dict[str, Any] = {
        "plugins_used": [{"name": n} for n in names] + ours,
        # An explicit list: never the verification filter, which would send candidates out.
        "filters_used": [{"path": p} for p in _FILTERS]
        + [{"path": f"file://{path}::is_placeholder"}],
    }
    # The plugins are made from those classes, kept (not found again: that would execute
    # our file once more for each of our plugins).
    with transient_settings(config):
        # The block's settings are dropped when it ends, so no one else holds these filters.
        return get_settings().filters, _Engine(list(get_plugins()), list(get_filters()))


# A line plugin, the words a line needs for it (None: any line) and its skip test, or None.
_LinePlugin = tuple[Any, "frozenset[str] | None", "Callable[[Any, str, Any], bool] | None"]


class _Engine:
    """The plugins and filters of one ``transient_settings`` block, run over text."""

    def __init__(self, plugins: list[Any], filters: list[Any]) -> None:
        from detect_secrets.plugins.keyword import DENYLIST

        whole = [p for p in plugins if type(p).__name__ == _PEM_PLUGIN or _whole_text(p)]
        self._key_plugins = whole
        # Each line plugin with the test a line must pass before it runs, where one can only
        # skip lines it reports nothing on: every KeywordDetector rule contains one of its
        # DENYLIST words (skipping it on a line without any halves the time spent on prose);
        # AzureStorageKeyDetector reports only beside "azure" or an account key.
        keyword = re.compile("|".join(DENYLIST), re.IGNORECASE)
        gates: dict[str, Callable[[Any, str, Any], bool]] = {
            _KEYWORD_PLUGIN: lambda plugin, line, context: keyword.search(line) is not None,
            _AZURE_PLUGIN: lambda plugin, line, context: _names_azure(plugin, context),
        }
        # And before that, the words a line must hold (case-folded) for a plugin to report
        # anything on it: one of the literal runs each of its patterns needs (a regex detector
        # only reports what its patterns find in the line; KeywordDetector only on a line its
        # gate passes). Most lines hold none of a plugin's words: its regexes are not run.
        self._line_plugins: list[_LinePlugin] = [
            (p, needed_words([keyword] if type(p).__name__ == _KEYWORD_PLUGIN else _patterns(p)),
             gates.get(type(p).__name__))
            for p in plugins
            if p not in whole
        ]  # fmt: skip
        # Filters by what they look at, as detect_secrets.core.scan applies them: the line
        # (allowlist pragma, indirect references) or the candidate value. Filters that look
        # only at the file name do not apply to text.
        self._line_filters: list[Any] = []
        self._value_filters: list[Any] = []
        for fn in filters:
            needs = frozenset(fn.injectable_variables)
            if needs <= _LINE_VALUES and needs != {"filename"}:
                self._line_filters.append(fn)
            elif "secret" in needs and needs <= _SECRET_VALUES:
                self._value_filters.append(fn)

    def scan(
        self, text: str, source: str, seen: dict[tuple[int, tuple[str, ...]], list[str]]
    ) -> list[SecretHit]:
        """The hits in ``text``. ``seen`` holds the kinds found on each line of a text from
        the same source by the line's number and the lines around it (its context), which
        are all a line's detectors and filters read: a line reading the same is not
        scanned again."""
        from detect_secrets.util.code_snippet import get_code_snippet

        filename = _rules_name(source)
        # The plugins whose words the text holds somewhere; no other can report on a line.
        folded = fold(text)
        plugins = [
            (plugin, words, gate)
            for plugin, words, gate in self._line_plugins
            if words is None or any(word in folded for word in words)
        ]
        lines = [line.removesuffix("\r") for line in text.split("\n")]
        found: set[tuple[int, str]] = set()
        for number, raw in enumerate(lines, start=1):
            line = raw.strip()
            if len(line) >= _MIN_LINE:
                context = get_code_snippet(lines=lines, line_number=number)
                key = (number, tuple(context.lines))
                if key not in seen:
                    seen[key] = list(self._kinds(plugins, filename, context, number, line))
                found.update((number, kind) for kind in seen[key])
        found.update(self._private_keys(text))
        # One key, one finding: a generic kind of ours gives way to a specific one on its line.
        specific = {n for n, kind in found if kind not in _GENERIC_KINDS}
        found = {(n, kind) for n, kind in found if kind not in _GENERIC_KINDS or n not in specific}
        return [SecretHit(source, number, kind) for number, kind in sorted(found)]

    def _kinds(
        self, plugins: list[_LinePlugin], filename: str, context: Any, number: int, line: str
    ) -> Iterator[str]:
        values: dict[str, Any] = {"filename": filename, "line": line, "context": context}
        line_checked = False  # the line filters are slow: run them once a plugin finds something
        folded = fold(line)
        for plugin, words, gate in plugins:
            if words is not None and not any(word in folded for word in words):
                continue
            if gate is not None and not gate(plugin, line, context):
                continue
            for candidate in plugin.analyze_line(
                filename=filename, line=line, line_number=number, context=context
            ):
                secret = candidate.secret_value
                # A format match with an empty capture group (NpmDetector's ``npm_...``
                # alternative) would be dropped by the value filters as "templated", so the
                # engine alone never reports those tokens. A format match is a hit.
                if secret and any(
                    _rejects(fn, {**values, "secret": secret, "plugin": plugin})
                    for fn in self._value_filters
                ):
                    continue
                # The line filters drop every candidate of the line or none: they are slow
                # (the indirect-reference pattern), so they run once, for the first candidate
                # the value filters keep.
                if not line_checked:
                    if any(
                        _rejects(fn, values) for fn in self._line_filters if _may_reject(fn, line)
                    ):
                        return
                    line_checked = True
                yield _kind(plugin)

    def _private_keys(self, text: str) -> Iterator[tuple[int, str]]:
        # A PEM key spans lines (header, body, footer), so the engine matches its patterns
        # against the whole of a small file; here, against the whole text, reporting the line
        # of the BEGIN header. This also covers a key on one line with escaped newlines.
        for plugin in self._key_plugins:
            for pattern in type(plugin).denylist:
                for match in pattern.finditer(text):
                    yield text.count("\n", 0, match.start()) + 1, _kind(plugin)


def _kind(plugin: Any) -> str:
    """What a hit is reported as: a plugin of ours that widens one of the engine's says so
    (``reported_as``), so one key is one finding."""
    return str(getattr(plugin, "reported_as", plugin.secret_type))


# The tail of is_indirect_reference's pattern (detect_secrets.filters.heuristic), from the
# assignment or comparison on: the whole pattern is found in a line exactly where its tail is
# (what comes before the operator may be empty), and the tail is found in linear time.
_INDIRECT_TAIL = re.compile(r"(:=?|[!=]{1,3})\s*([\w.-]+[\[\(][^\v]*[\]\)])")


def _may_reject(fn: Any, line: str) -> bool:
    """Whether a line filter can drop this line. The engine's is_indirect_reference
    (``x = os.environ[...]``, ``x = get(...)``) drops only a line holding its pattern's
    tail, and its pattern takes quadratic time over a long line without it (~80 ms for
    1,000 characters, such as a kubeconfig's ``client-key-data``): there it is not run."""
    return fn.__name__ != "is_indirect_reference" or _INDIRECT_TAIL.search(line) is not None


def _names_azure(plugin: Any, context: Any) -> bool:
    """Whether the lines around a line (its context) say "azure" or "account key":
    AzureStorageKeyDetector reports a key only then, but learns it only after compiling
    three patterns for each candidate, ~1.5 ms each (every ``sha512-...==`` integrity hash
    in a package-lock.json is one). Its own word and pattern, over the same lines."""
    near = "\n".join(context.lines)
    return plugin.azure in near.lower() or plugin.account_key_check.search(near) is not None


def _whole_text(plugin: Any) -> bool:
    return bool(getattr(plugin, "whole_text", False))


def _rejects(fn: Any, values: dict[str, Any]) -> bool:
    """Whether an engine filter drops this candidate; filters needing more values abstain."""
    needs = fn.injectable_variables
    if not needs <= values.keys():
        return False
    return bool(fn(**{k: values[k] for k in needs}))


def _patterns(plugin: Any) -> list[Any] | None:
    """A regex detector's patterns (``RegexBasedDetector.denylist``), or None."""
    return list(plugin.denylist) if hasattr(type(plugin), "denylist") else None
