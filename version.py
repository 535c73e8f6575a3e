"""The release this tree is: the one place its version number is written (semantic versioning).

`/_status`, the console's footer and the User-Agent of every outbound HTTP call read it from here;
pyproject.toml reads it too (`[tool.setuptools.dynamic]`). CHANGELOG.md says what each release
changed and how to upgrade to it.
"""
__version__ = "1.0.0"
