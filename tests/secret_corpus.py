"""The secret-scan corpus, assembled at test time: every planted secret is built from pieces
and seeded random characters, so the repository holds no secret and no real-looking one.

``variants()``: each kind of secret the scan must catch, in a context file and in the topic,
with CRLF line ends, indentation, quoting, case changes, and control or zero-width characters
inside the key. ``benign()``: ordinary files that must pass (hashes, UUIDs, git SHAs, base64
images, lorem ipsum, minified JS, configs with placeholders, prose about authentication).
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
from collections.abc import Callable
from typing import NamedTuple

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
UPPER = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
DASHES = "-" * 5


class Variant(NamedTuple):
    test_id: str
    where: str  # "context" or "topic"
    path: str  # the context file's name (unused for the topic)
    text: str


class Benign(NamedTuple):
    path: str
    text: str


def _fill(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _pem(rng: random.Random, label: str, indent: str = "") -> str:
    body = [_fill(rng, 64, B64) for _ in range(5)] + [_fill(rng, 20, B64) + "=="]
    lines = [DASHES + "BEGIN " + label + DASHES, *body, DASHES + "END " + label + DASHES]
    return "\n".join(indent + line for line in lines)


# -- the kinds: (secret, snippet(secret, upper_case_names)) -------------------------------------

Snippet = Callable[[str, bool], str]


def _kinds(rng: random.Random) -> dict[str, tuple[str, Snippet, str]]:
    """Kind -> (secret, how a file holds it, the file's name)."""
    f = lambda n, a=ALNUM: _fill(rng, n, a)  # noqa: E731

    def env_line(name: str) -> Snippet:
        return lambda s, up: f"# service settings\n{name.upper() if up else name.lower()}={s}\n"

    def prose(lead: str) -> Snippet:
        return lambda s, up: f"{lead.upper() if up else lead} {s} (rotate it monthly).\n"

    def bearer(s: str, up: bool) -> str:
        head = "AUTHORIZATION: BEARER" if up else "Authorization: Bearer"
        return f"curl -H '{head} {s}' https://api.internal.example/v1/items\n"

    def pem_doc(s: str, up: bool) -> str:
        return s + "\n"

    def pem_yaml(s: str, up: bool) -> str:
        return f"tls:\n  {'KEY' if up else 'key'}: |\n{s}\n"

    def kube_token(s: str, up: bool) -> str:
        name = "TOKEN" if up else "token"
        return f"apiVersion: v1\nkind: Config\nusers:\n- name: deployer\n  user:\n    {name}: {s}\n"

    def kube_key(s: str, up: bool) -> str:
        name = "CLIENT-KEY-DATA" if up else "client-key-data"
        return f"users:\n- name: admin\n  user:\n    {name}: {s}\n"

    def docker(s: str, up: bool) -> str:
        key = "AUTH" if up else "auth"
        return json.dumps({"auths": {"registry.example.com": {key: s}}}, indent=2) + "\n"

    def quoted_json(name: str) -> Snippet:
        return lambda s, up: json.dumps({name.upper() if up else name: s}, indent=2) + "\n"

    user_pw = base64.b64encode(f"deploy:{f(16)}".encode()).decode()
    key_data = base64.b64encode(bytes(rng.randrange(256) for _ in range(300))).decode()
    return {
        "openai-project": ("sk-" + "proj-" + f(64, URLSAFE), prose("The OpenAI key is"), "n.md"),
        "openai-legacy": ("sk-" + f(48), env_line("openai_key"), "settings.txt"),
        "anthropic": ("sk-" + "ant-api03-" + f(93, URLSAFE) + "AA", prose("Use"), "notes.md"),
        "google": ("AI" + "za" + f(35, URLSAFE), prose("Maps key:"), "maps.md"),
        "gitlab": ("gl" + "pat-" + f(20, URLSAFE), prose("CI pushes with"), "ci.md"),
        "huggingface": ("hf" + "_" + f(34, string.ascii_letters), prose("Model pulls use"), "m.md"),
        "github-fine-grained": (
            "github" + "_pat_" + f(22) + "_" + f(59),
            prose("Bot token:"),
            "bot.md",
        ),
        "github-classic": ("gh" + "p_" + f(36), prose("Release script uses"), "release.md"),
        "aws-key-id": ("AK" + "IA" + f(16, UPPER), env_line("aws_access_key_id"), "aws.txt"),
        "slack": (
            "xox" + "b-" + f(11, string.digits) + "-" + f(12, string.digits) + "-" + f(24),
            prose("Slack bot:"),
            "slack.md",
        ),
        "stripe": ("sk" + "_live_" + f(24), quoted_json("stripe_secret"), "pay.json"),
        "bearer": (f(40, URLSAFE), bearer, "api.md"),
        "pem-rsa": (_pem(rng, "RSA PRIVATE" + " KEY"), pem_doc, "key.txt"),
        "pem-pkcs8": (_pem(rng, "PRIVATE" + " KEY"), pem_doc, "service.txt"),
        "pem-encrypted": (_pem(rng, "ENCRYPTED PRIVATE" + " KEY"), pem_doc, "enc.txt"),
        "pem-openssh": (_pem(rng, "OPENSSH PRIVATE" + " KEY"), pem_doc, "ssh.txt"),
        "pem-yaml-indented": (_pem(rng, "EC PRIVATE" + " KEY", "    "), pem_yaml, "tls.yaml"),
        "kube-token": (f(6, LOWER) + "." + f(16, LOWER), kube_token, "cluster.yaml"),
        "kube-sa-token": (f(60, URLSAFE), kube_token, "ops.yaml"),
        "kube-client-key": (key_data, kube_key, "admin.yaml"),
        "docker-auth": (user_pw, docker, "registry.json"),
        "pass": (f(14), env_line("pass"), "db.txt"),
        "db-pass": (f(12), env_line("db_pass"), "db.txt"),
        "passphrase": (f(18), env_line("passphrase"), "gpg.txt"),
        "password-keyword": (f(16), env_line("password"), "app.txt"),
    }


def _inside(secret: str, mark: str) -> str:
    """``mark`` put into the middle of the secret's longest run of key characters."""
    runs = [w for w in secret.replace("\n", " ").split(" ") if w]
    word = max(runs, key=len)
    cut = len(word) // 2
    return secret.replace(word, word[:cut] + mark + word[cut:], 1)


_TRANSFORMS: dict[str, Callable[[str, str], str]] = {
    # name -> (snippet text, secret) -> new text
    "plain": lambda text, s: text,
    "crlf": lambda text, s: text.replace("\n", "\r\n"),
    "indented": lambda text, s: "".join("    " + line for line in text.splitlines(True)),
    "zero-width": lambda text, s: text.replace(s, _inside(s, "\u200b")),
    "soft-hyphen": lambda text, s: text.replace(s, _inside(s, "\u00ad")),
    "ansi": lambda text, s: text.replace(s, _inside(s, "\x1b[0m")),
    "bidi": lambda text, s: text.replace(s, _inside(s, "\u202e")),
}


def variants(seed: int = 1818) -> list[Variant]:
    rng = random.Random(seed)
    out: list[Variant] = []
    for kind, (secret, snippet, path) in _kinds(rng).items():
        for transform, fn in _TRANSFORMS.items():
            for upper in (False, True):
                text = fn(snippet(secret, upper), secret)
                case = "upper" if upper else "lower"
                out.append(Variant(f"{kind}-{transform}-{case}-context", "context", path, text))
                if transform in ("plain", "zero-width", "ansi") and not upper:
                    out.append(Variant(f"{kind}-{transform}-topic", "topic", "", text))
        quoted = snippet(f'"{secret}"', False) if "\n" not in secret else None
        if quoted is not None:
            out.append(Variant(f"{kind}-quoted-context", "context", path, quoted))
    return out


# -- benign files ------------------------------------------------------------------------------

_LOREM = (
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt "
    "ut labore et dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation "
    "ullamco laboris nisi ut aliquip ex ea commodo consequat. Duis aute irure dolor in "
    "reprehenderit in voluptate velit esse cillum dolore eu fugiat nulla pariatur. Excepteur "
    "sint occaecat cupidatat non proident, sunt in culpa qui officia deserunt mollit anim id "
    "est laborum."
)

_CONFIGS = {
    "docker-compose.yml": (
        "services:\n  db:\n    image: postgres:16\n    environment:\n"
        "      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n      POSTGRES_USER: app\n"
        '    ports:\n      - "5432:5432"\n  web:\n    build: .\n    depends_on: [db]\n'
    ),
    "nginx.conf": (
        "server {\n  listen 443 ssl;\n  server_name example.org;\n"
        "  ssl_certificate /etc/ssl/certs/site.crt;\n"
        "  ssl_certificate_key /etc/ssl/private/site.key;\n"
        "  location / { proxy_pass http://127.0.0.1:8080; proxy_set_header Host $host; }\n}\n"
    ),
    "package.json": json.dumps(
        {
            "name": "web",
            "version": "1.4.2",
            "scripts": {"build": "vite build", "test": "vitest"},
            "dependencies": {"react": "^18.3.1", "zod": "^3.23.8"},
        },
        indent=2,
    )
    + "\n",
    "pyproject.toml": (
        '[project]\nname = "svc"\nversion = "0.3.0"\ndependencies = ["httpx>=0.27"]\n\n'
        "[tool.ruff]\nline-length = 100\n"
    ),
    "deploy.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: 3\n"
        "  template:\n    spec:\n      containers:\n      - name: api\n        image: api:1.2\n"
        "        env:\n        - name: DB_PASSWORD\n          valueFrom:\n"
        "            secretKeyRef:\n"
        "              name: db\n              key: password\n"
    ),
    "ci.yml": (
        "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
        "    - uses: actions/checkout@v4\n    - run: make test\n      env:\n"
        "        TOKEN: ${{ secrets.DEPLOY_TOKEN }}\n        NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n"
    ),
    ".env.sample": (
        "# copy to .env and fill in\nAPI_KEY=changeme\nDB_PASS=changeme\nPASSPHRASE=\n"
        "SECRET_KEY=your-secret-here\nDATABASE_URL=postgres://user:password@localhost/app\n"
    ),
    ".env.template": "OPENAI_API_KEY=\nPASS=<your password>\nTOKEN=${TOKEN}\n",
    ".env.defaults": "LOG_LEVEL=info\nPASSWORD=changeme\nPORT=8080\n",
    ".env.dist": "APP_SECRET=xxxxxxxx\nDB_PASSWORD=example\n",
    "auth.md": (
        "# Authentication\n\nClients send the token in the Authorization header as "
        "`Bearer <token>`. Tokens expire after one hour; refresh with the refresh token.\n"
        "Passwords must be at least 12 characters. The passphrase prompt appears once.\n"
        "Set `token:` in your kubeconfig only via `kubectl config set-credentials`.\n"
    ),
    "kube-example.yaml": (
        "users:\n- name: dev\n  user:\n    exec:\n      command: aws\n"
        "      args: [eks, get-token, --cluster-name, dev]\n"
    ),
    "main.tf": (
        'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n'
        'resource "aws_db_instance" "db" {\n  password = var.db_password\n}\n'
    ),
    "settings.py": (
        'import os\n\nSECRET_KEY = os.environ["SECRET_KEY"]\nDEBUG = False\n'
        "password = get_password(user)\ntoken = response.token\n"
    ),
    "Makefile": "test:\n\tpytest -q\nlint:\n\truff check .\n",
    "README-auth.md": (
        'Run `docker login` first; it writes an "auth" entry to ~/.docker/config.json.\n'
        "The PEM header looks like `-----BEGIN PRIVATE KEY-----` (never commit one).\n"
        "Use sk-... style keys only from the environment.\n"
    ),
}


def _minified_js(rng: random.Random) -> str:
    parts = []
    for _ in range(120):
        a, b, c = (_fill(rng, rng.randint(1, 3), string.ascii_letters) for _ in range(3))
        word = _fill(rng, rng.randint(4, 12), string.ascii_lowercase)
        parts.append(
            rng.choice(
                [
                    f"function {a}({b},{c}){{return {b}+{c}}}",
                    f'var {a}="{word}",{b}={rng.randint(0, 9999)};',
                    f"{a}.prototype.{word}=function({b}){{this.{c}={b}}};",
                    f"if({a}&&{b}.{word}){{{c}({a})}}",
                    f'const {a}=document.querySelector("#{word}");',
                ]
            )
        )
    return "".join(parts) + "\n"


def benign(seed: int = 1819) -> list[Benign]:
    rng = random.Random(seed)
    out: list[Benign] = []
    for i in range(10):
        lines = [
            f"{hashlib.sha256(_fill(rng, 20).encode()).hexdigest()}  dist/pkg-{i}.{n}.tar.gz"
            for n in range(40)
        ]
        out.append(Benign(f"SHA256SUMS-{i}", "\n".join(lines) + "\n"))
    for i in range(8):
        out.append(
            Benign(
                f"ids-{i}.csv",
                "".join(
                    f"{uuid.UUID(int=rng.getrandbits(128), version=4)},{_fill(rng, 8, LOWER)},"
                    f"{rng.randint(1, 999)}\n"
                    for _ in range(60)
                ),
            )
        )
    for i in range(8):
        entries = []
        for _ in range(15):
            sha = hashlib.sha1(_fill(rng, 12).encode()).hexdigest()
            entries.append(
                f"commit {sha}\nAuthor: Dev <dev@example.com>\n"
                f"Date:   Mon Nov 30 10:{rng.randint(10, 59)}:00 2026\n\n"
                f"    Fix {_fill(rng, 8, string.ascii_lowercase)} handling\n"
            )
        out.append(Benign(f"gitlog-{i}.txt", "\n".join(entries)))
    for i in range(8):
        data = base64.b64encode(
            b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(2400))
        )
        out.append(
            Benign(
                f"page-{i}.md",
                f"# Screenshot {i}\n\n![shot](data:image/png;base64,{data.decode()})\n",
            )
        )
    for i in range(10):
        words = _LOREM.split()
        rng.shuffle(words)
        paras = [" ".join(words[j:] + words[:j]) for j in range(0, 60, 6)]
        out.append(Benign(f"lorem-{i}.txt", "\n\n".join(paras) + "\n"))
    for i in range(10):
        out.append(Benign(f"bundle-{i}.min.js", _minified_js(rng)))
    for i in range(6):
        integrity = {
            f"node_modules/pkg{n}": {
                "version": f"1.{n}.0",
                "integrity": "sha512-"
                + base64.b64encode(hashlib.sha512(_fill(rng, 10).encode()).digest()).decode(),
            }
            for n in range(30)
        }
        out.append(Benign(f"package-lock-{i}.json", json.dumps({"packages": integrity}, indent=2)))
    for name, text in _CONFIGS.items():
        out.append(Benign(name, text))
    for i in range(6):
        text = "\n".join(
            f"{k} = {rng.randint(1, 500)}"
            for k in ("workers", "timeout", "max_connections", "retries", "port")
        )
        out.append(Benign(f"service-{i}.ini", "[server]\n" + text + "\n"))
    return out
