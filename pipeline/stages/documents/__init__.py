"""Send a file by email: prepared uploads become encrypted files behind unguessable download links."""
from pipeline.stages.documents.prepare import PreparedFiles, download_url, is_prepared_file, prepare_files

__all__ = ["PreparedFiles", "download_url", "is_prepared_file", "prepare_files"]
