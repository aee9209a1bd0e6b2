"""What the word-file builders share (build-wordnet-groups.py, build-moby-synonyms.py): a pinned
npm tarball, its integrity checked, and the pair files' lines."""
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


def pair_lines(later: dict[str, set[str]]) -> list[str]:
    """A pair file's lines, each pair once under the first of its two words: the word, then the later
    words it pairs with, both sorted."""
    return [f"{word} {' '.join(sorted(later[word]))}" for word in sorted(later)]
