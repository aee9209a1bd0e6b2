"""What the word-file builders share (build-wordnet-groups.py, build-moby-synonyms.py): a pinned
npm tarball, its integrity checked, and the pair files."""
import base64
import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path


def npm_tarball(spec: str, integrity: str, named: str | None) -> bytes:
    """The tarball of `spec` ("name@version"), from the file `named` or from `npm pack`; exits unless
    its sha512 integrity is `integrity`."""
    if named is not None:
        data = Path(named).read_bytes()
    else:
        with tempfile.TemporaryDirectory() as folder:
            name = subprocess.run(["npm", "pack", spec, "--silent", "--pack-destination", folder],
                                  check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
            data = (Path(folder) / name).read_bytes()
    actual = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if actual != integrity:
        sys.exit(f"{spec}: integrity {actual}, expected {integrity}")
    return data


def add_pair(later: dict[str, set[str]], one: str, two: str) -> None:
    """Records a pair once, under the first of its two words in sort order."""
    first, second = sorted((one, two))
    later[first].add(second)


def write_pairs(path: Path, header: list[str], later: dict[str, set[str]], root: Path) -> None:
    """Writes a pair file: the header, then one line a word, sorted: the word, then the later words
    it pairs with, sorted; and says how many."""
    lines = [f"{word} {' '.join(sorted(later[word]))}" for word in sorted(later)]
    path.write_text("\n".join(header + lines) + "\n")
    print(f"{path.relative_to(root)}: {len(later)} words, {sum(len(words) for words in later.values())} pairs")
