"""mkdocs hooks for the Sluice docs (mkdocs.yml `hooks:`).

The pages link into the source tree (`../server/access/api/README.md`,
`../integration/gcp_fake/`), which mkdocs does not know and would report as
missing. This hook checks every such link against the repository, fails the
build (a warning under --strict) when its target does not exist, and points
it at the source: at $SLUICE_DOCS_SOURCE_URL + path when that is set (e.g. a
forge's `.../blob/main/`), else relative to the built page, which resolves
inside a checkout because site/ sits beside docs/ at the repository root.
"""
import logging
import os
import posixpath
import re

log = logging.getLogger("mkdocs.hooks.sluice")

_SCHEME = "sluice-src:"
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _repo_root(config):
    return os.path.dirname(os.path.abspath(config["config_file_path"]))


def on_page_markdown(markdown, page, config, files):
    docs_dir = config["docs_dir"]
    root = _repo_root(config)
    page_dir = posixpath.dirname(page.file.src_uri)

    def rewrite(m):
        url = m.group(1)
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url) or url.startswith(("#", "/")):
            return m.group(0)
        path, _, frag = url.partition("#")
        target = posixpath.normpath(posixpath.join(page_dir, path))
        if files.get_file_from_path(target) is not None:
            return m.group(0)  # a page or a file of the site: mkdocs checks it
        if not target.startswith("../") and os.path.isfile(os.path.join(docs_dir, target)):
            return m.group(0)
        repo_path = posixpath.normpath(posixpath.join("docs", target))
        if repo_path.startswith("../") or not os.path.exists(os.path.join(root, repo_path)):
            log.warning("Doc file '%s' links to '%s', which is neither a page nor a file "
                        "of the repository (%s).", page.file.src_uri, url, repo_path)
            return m.group(0)
        if path.endswith("/") and not repo_path.endswith("/"):
            repo_path += "/"
        return "](%s%s%s)" % (_SCHEME, repo_path, "#" + frag if frag else "")

    out, fence = [], False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fence = not fence
        elif not fence:
            line = _LINK.sub(rewrite, line)
        out.append(line)
    return "\n".join(out)


def on_page_content(html, page, config, files):
    base = os.environ.get("SLUICE_DOCS_SOURCE_URL", "")
    if not base:
        site_dir = os.path.abspath(config["site_dir"])
        page_dir = os.path.dirname(os.path.join(site_dir, page.file.dest_uri))
        base = os.path.relpath(_repo_root(config), page_dir).replace(os.sep, "/") + "/"
    elif not base.endswith("/"):
        base += "/"
    return html.replace('href="' + _SCHEME, 'href="' + base)
