#!/usr/bin/env python3
"""Checks a META.json against the PGXN Meta Spec 1.0.0 (https://pgxn.org/meta/spec.txt):
the required keys, the form of terms, versions, version ranges and licenses, the
structure of provides, prereqs, resources, no_index and tags, and no unknown keys
(custom keys start with x_).  Standard library only.  Usage: pgxn_meta.py META.json [ROOT]
(ROOT: the distribution's root, to check that the files named exist).  Prints one
line per problem; exit status 1 when there is any."""
import json
import os
import re
import sys

SEMVER = (r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
          r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
          r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?")
VERSION = re.compile(r"^" + SEMVER + r"$")
RANGE_PART = r"(?:(?:[=!]=|[<>]=?)\s*)?(?:" + SEMVER + r"|0)"
RANGE = re.compile(r"^" + RANGE_PART + r"(?:,\s*" + RANGE_PART + r")*$")
TERM = re.compile(r"^[^/\\\s\x00-\x1f\x7f]{2,}$")
TAG = re.compile(r"^[^/\\\x00-\x1f\x7f]{2,255}$")
URI = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$")
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
LICENSES = {"agpl_3", "apache_1_1", "apache_2_0", "artistic_1", "artistic_2", "bsd", "freebsd", "gfdl_1_2",
            "gfdl_1_3", "gpl_1", "gpl_2", "gpl_3", "lgpl_2_1", "lgpl_3_0", "mit", "mozilla_1_0", "mozilla_1_1",
            "openssl", "perl_5", "postgresql", "qpl_1_0", "ssleay", "sun", "zlib", "open_source",
            "restricted", "unrestricted", "unknown"}
PHASES = {"configure", "build", "test", "runtime", "develop"}
RELATIONS = {"requires", "recommends", "suggests", "conflicts"}

problems = []


def problem(path, message):
    problems.append(f"{path}: {message}")


def custom(key):
    return re.match(r"^[xX]_.", key) is not None


def keys_in(obj, path, allowed, required=()):
    if not isinstance(obj, dict):
        problem(path, "must be an object")
        return False
    for key in required:
        if key not in obj:
            problem(path, f"missing required key {key!r}")
    for key in obj:
        if key not in allowed and not custom(key):
            problem(path, f"unknown key {key!r}")
    return True


def string(value, path, pattern=None, what="a string"):
    if not isinstance(value, str) or not value:
        problem(path, f"must be a non-empty string")
    elif pattern is not None and not pattern.match(value):
        problem(path, f"{value!r} is not {what}")


def check_license(value, path):
    if isinstance(value, str):
        if value not in LICENSES:
            problem(path, f"{value!r} is not a known license name")
    elif isinstance(value, list) and value:
        for i, v in enumerate(value):
            check_license(v, f"{path}[{i}]") if isinstance(v, str) else problem(f"{path}[{i}]", "must be a string")
    elif isinstance(value, dict) and value:
        for k, v in value.items():
            string(v, f"{path}.{k}", URI, "a URI")
    else:
        problem(path, "must be a license name, a list of them, or an object of names to URIs")


def check_file(value, path, root):
    string(value, path)
    if isinstance(value, str) and root is not None and not os.path.isfile(os.path.join(root, value)):
        problem(path, f"{value!r} is not a file of the distribution")


def check(meta, root):
    top = {"name", "version", "abstract", "maintainer", "license", "provides", "meta-spec", "description",
           "generated_by", "tags", "no_index", "prereqs", "release_status", "resources"}
    if not keys_in(meta, "META", top, ["name", "version", "abstract", "maintainer", "license", "provides",
                                       "meta-spec"]):
        return
    string(meta.get("name"), "name", TERM, "a term")
    string(meta.get("version"), "version", VERSION, "a semantic version")
    string(meta.get("abstract"), "abstract")
    for key in ("description", "generated_by"):
        if key in meta:
            string(meta[key], key)
    m = meta.get("maintainer")
    if isinstance(m, list):
        if not m or len(set(m)) != len(m):
            problem("maintainer", "a list must be non-empty, without repeats")
        for i, v in enumerate(m):
            string(v, f"maintainer[{i}]")
    else:
        string(m, "maintainer")
    check_license(meta.get("license"), "license")
    spec = meta.get("meta-spec")
    if keys_in(spec, "meta-spec", {"version", "url"}, ["version"]):
        string(spec.get("version"), "meta-spec.version", re.compile(r"^1\.0\.\d+$"), "1.0.x")
        if "url" in spec and spec["url"] not in ("https://pgxn.org/meta/spec.txt", "http://pgxn.org/meta/spec.txt"):
            problem("meta-spec.url", "must be the spec's address")
    provides = meta.get("provides")
    if isinstance(provides, dict) and provides:
        for name, ext in provides.items():
            path = f"provides.{name}"
            string(name, path + " (name)", TERM, "a term")
            if keys_in(ext, path, {"file", "version", "abstract", "docfile", "docpath"}, ["file", "version"]):
                check_file(ext.get("file"), path + ".file", root)
                string(ext.get("version"), path + ".version", VERSION, "a semantic version")
                if "abstract" in ext:
                    string(ext["abstract"], path + ".abstract")
                if "docfile" in ext:
                    check_file(ext["docfile"], path + ".docfile", root)
    else:
        problem("provides", "must be a non-empty object")
    if "prereqs" in meta and keys_in(meta["prereqs"], "prereqs", PHASES):
        for phase, rels in meta["prereqs"].items():
            if custom(phase) or not keys_in(rels, f"prereqs.{phase}", RELATIONS):
                continue
            if not any(r in rels for r in RELATIONS):
                problem(f"prereqs.{phase}", "needs requires, recommends, suggests or conflicts")
            for rel, reqs in rels.items():
                path = f"prereqs.{phase}.{rel}"
                if custom(rel):
                    continue
                if not isinstance(reqs, dict) or not reqs:
                    problem(path, "must be a non-empty object")
                    continue
                for name, rng in reqs.items():
                    string(name, f"{path} (name)", TERM, "a term")
                    if isinstance(rng, int) and rng == 0:
                        continue
                    string(rng, f"{path}.{name}", RANGE, "a version range")
    if "resources" in meta and keys_in(meta["resources"], "resources", {"homepage", "bugtracker", "repository"}):
        res = meta["resources"]
        if not any(k in res for k in ("homepage", "bugtracker", "repository")):
            problem("resources", "needs homepage, bugtracker or repository")
        if "homepage" in res:
            string(res["homepage"], "resources.homepage", URI, "a URI")
        bt = res.get("bugtracker")
        if bt is not None and keys_in(bt, "resources.bugtracker", {"web", "mailto"}):
            if "web" not in bt and "mailto" not in bt:
                problem("resources.bugtracker", "needs web or mailto")
            if "web" in bt:
                string(bt["web"], "resources.bugtracker.web", URI, "a URI")
            if "mailto" in bt:
                string(bt["mailto"], "resources.bugtracker.mailto", EMAIL, "an email address")
        repo = res.get("repository")
        if repo is not None and keys_in(repo, "resources.repository", {"url", "web", "type"}):
            if not ("url" in repo and "type" in repo) and "web" not in repo:
                problem("resources.repository", "needs url and type, or web")
            for k in ("url", "web"):
                if k in repo:
                    string(repo[k], f"resources.repository.{k}", URI, "a URI")
            if "type" in repo:
                string(repo["type"], "resources.repository.type", re.compile(r"^[a-z]+$"), "lowercase")
    if "release_status" in meta and meta["release_status"] not in ("stable", "testing", "unstable"):
        problem("release_status", "must be stable, testing or unstable")
    if "tags" in meta:
        tags = meta["tags"]
        if not isinstance(tags, list) or not tags or len(set(map(str, tags))) != len(tags):
            problem("tags", "must be a non-empty list without repeats")
        else:
            for i, t in enumerate(tags):
                string(t, f"tags[{i}]", TAG, "a tag")
    if "no_index" in meta and keys_in(meta["no_index"], "no_index", {"file", "directory"}):
        for k, v in meta["no_index"].items():
            if custom(k):
                continue
            vals = [v] if isinstance(v, str) else v
            if not isinstance(vals, list) or not vals:
                problem(f"no_index.{k}", "must be a path or a non-empty list of paths")
            else:
                for i, p in enumerate(vals):
                    string(p, f"no_index.{k}[{i}]")


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        try:
            meta = json.load(f)
        except json.JSONDecodeError as e:
            print(f"META.json is not JSON: {e}")
            return 1
    check(meta, sys.argv[2] if len(sys.argv) > 2 else None)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
