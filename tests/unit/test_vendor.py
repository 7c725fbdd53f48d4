"""CDN addresses as npm package files, and a run's vendor folder (no browser, no registry)."""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers.vendor import seed_package

from pytest_e2ebench.environment import vendor
from pytest_e2ebench.environment.vendor import Package, VendorError, locate
from pytest_e2ebench.errors import InfrastructureError


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "https://cdnjs.cloudflare.com/ajax/libs/jquery/3.6.0/jquery.min.js",
            [Package("jquery", "3.6.0", "jquery.min.js")],
        ),
        (
            "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/5.15.1/css/all.min.css",
            [Package("@fortawesome/fontawesome-free", "5.15.1", "css/all.min.css")],
        ),
        (
            "//cdnjs.cloudflare.com/ajax/libs/font-awesome/4.7.0/css/font-awesome.min.css",
            [Package("font-awesome", "4.7.0", "css/font-awesome.min.css")],
        ),
        (
            "https://cdn.jsdelivr.net/npm/@popperjs/core@2.10.2/dist/umd/popper.min.js",
            [Package("@popperjs/core", "2.10.2", "dist/umd/popper.min.js")],
        ),
        ("https://cdn.jsdelivr.net/npm/chart.js", [Package("chart.js", "latest", None)]),
        ("https://unpkg.com/vue@3/dist/vue.global.js", [Package("vue", "3", "dist/vue.global.js")]),
        (
            "https://code.jquery.com/jquery-3.5.1.slim.min.js",
            [Package("jquery", "3.5.1", "dist/jquery.slim.min.js")],
        ),
        (
            "https://code.jquery.com/ui/1.12.1/jquery-ui.min.js",
            [Package("jquery-ui-dist", "1.12.1", "jquery-ui.min.js")],
        ),
        (
            "https://ajax.googleapis.com/ajax/libs/jquery/2.2.4/jquery.min.js",
            [Package("jquery", "2.2.4", "jquery.min.js")],
        ),
        (
            "https://stackpath.bootstrapcdn.com/bootstrap/4.5.0/css/bootstrap.min.css",
            [Package("bootstrap", "4.5.0", "dist/css/bootstrap.min.css")],
        ),
        (
            "https://fonts.googleapis.com/css2?family=Poppins:wght@400;600&amp;display=swap",
            [
                Package("@fontsource/poppins", "latest", "400.css"),
                Package("@fontsource/poppins", "latest", "600.css"),
            ],
        ),
        (
            "https://fonts.googleapis.com/css2?family=Roboto:ital,wght@0,400;1,700",
            [
                Package("@fontsource/roboto", "latest", "400.css"),
                Package("@fontsource/roboto", "latest", "700-italic.css"),
            ],
        ),
        (
            "https://fonts.googleapis.com/css?family=Audiowide|Press+Start+2P:400,700i",
            [
                Package("@fontsource/audiowide", "latest", "400.css"),
                Package("@fontsource/press-start-2p", "latest", "400.css"),
                Package("@fontsource/press-start-2p", "latest", "700-italic.css"),
            ],
        ),
        ("https://api.exchangerate-api.com/v4/latest/USD", None),
        ("https://i.ibb.co/rvJd2XR/rate.png", None),
    ],
)
def test_cdn_addresses_name_npm_package_files(url, expected):
    assert locate(url) == expected


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://cdn.jsdelivr.net/gh/user/repo/file.js", "only jsDelivr's /npm/ addresses"),
        ("https://cdnjs.cloudflare.com/ajax/libs/jquery", "expected /ajax/libs/LIBRARY/VERSION"),
        ("https://code.jquery.com/color/jquery.color.js", "not a jQuery or jQuery UI file"),
        ("https://fonts.googleapis.com/css2?display=swap", "no family="),
    ],
)
def test_cdn_addresses_that_name_no_file_say_why(url, problem):
    with pytest.raises(VendorError, match=problem):
        locate(url)


def test_what_a_page_loads_is_found_and_links_are_not():
    page = """<link rel="stylesheet" href="https://cdn.jsdelivr.net/npm/a@1/a.css">
    <a href="https://github.com/someone">me</a>
    <script src='//code.jquery.com/jquery-3.6.0.min.js'></script>
    <img class="x" src="https://i.ibb.co/x.png">
    <style>@import url("https://fonts.googleapis.com/css?family=Muli"); .b{background:url(https://x.test/b.png)}</style>
    <script>fetch(`https://api.test/v1/${q}`); xhr.open("GET", "https://api.test/v2");</script>
    """
    assert vendor.loaded_urls(page) == [
        "https://cdn.jsdelivr.net/npm/a@1/a.css",
        "//code.jquery.com/jquery-3.6.0.min.js",
        "https://i.ibb.co/x.png",
        "https://fonts.googleapis.com/css?family=Muli",
        "https://x.test/b.png",
        "https://api.test/v1/${q}",
        "https://api.test/v2",
    ]


def test_registry_arguments_are_validated_before_npm_sees_them():
    for name, spec in [("--registry=http://evil", "1.0.0"), ("a", "file:../x"), ("a", "-v")]:
        with pytest.raises(VendorError, match="not an npm package name"):
            vendor.resolve_version(name, spec)


def test_a_stylesheet_brings_its_fonts_and_the_run_folder_is_hash_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    seed_package(
        tmp_path / "cache",
        "icons",
        "1.0.0",
        {
            "css/icons.min.css": "@font-face{src:url(../fonts/i.woff2?v=1) format('woff2')}"
            ".x{background:url(data:image/png;base64,AA)}",
            "fonts/i.woff2": "font bytes",
            "fonts/unused.ttf": "not loaded",
        },
    )
    url = "https://cdnjs.cloudflare.com/ajax/libs/icons/1.0.0/css/icons.min.css"
    found = vendor.resolve(url)
    assert found.entry == "icons@1.0.0/css/icons.min.css"
    assert found.packages == [
        {
            "name": "icons",
            "version": "1.0.0",
            "files": {
                "css/icons.min.css": hashlib.sha256(
                    (
                        tmp_path / "cache/vendor/npm/icons@1.0.0/package/css/icons.min.css"
                    ).read_bytes()
                ).hexdigest(),
                "fonts/i.woff2": hashlib.sha256(b"font bytes").hexdigest(),
            },
        }
    ]
    routes = vendor.materialize([found], tmp_path / "run")
    local = "/__e2ebench__/vendor/icons%401.0.0/css/icons.min.css"
    assert routes[url] == routes[url.replace("https:", "")] == routes[url.replace("s:", ":")]
    assert routes[url] == local
    assert (tmp_path / "run" / "icons@1.0.0" / "fonts" / "i.woff2").read_text() == "font bytes"
    assert not (tmp_path / "run" / "icons@1.0.0" / "fonts" / "unused.ttf").exists()
    assert json.loads((tmp_path / "run" / "routes.json").read_text()) == routes

    # a cached file that changed since the import is never served
    (tmp_path / "cache/vendor/npm/icons@1.0.0/package/fonts/i.woff2").write_text("tampered")
    with pytest.raises(InfrastructureError, match=r"fonts/i.woff2 .* does not match the SHA-256"):
        vendor.materialize([found], tmp_path / "run2")


def test_google_fonts_become_one_stylesheet_of_fontsource_weights(tmp_path, monkeypatch):
    monkeypatch.setenv("E2EBENCH_CACHE", str(tmp_path / "cache"))
    face = "@font-face{font-family:'Poppins';src:url(./files/p-{w}.woff2)}"
    seed_package(
        tmp_path / "cache",
        "@fontsource/poppins",
        "5.0.0",
        {
            "400.css": face.replace("{w}", "400"),
            "files/p-400.woff2": "4",
            "latin-600-normal.css": face.replace("{w}", "600"),
            "files/p-600.woff2": "6",
        },
    )
    url = "https://fonts.googleapis.com/css2?family=Poppins:wght@400;600;900&display=swap"
    found = vendor.resolve(url, pins={"@fontsource/poppins": "5.0.0"})
    assert found.stylesheet == (
        '@import url("/__e2ebench__/vendor/@fontsource/poppins@5.0.0/400.css");\n'
        '@import url("/__e2ebench__/vendor/@fontsource/poppins@5.0.0/latin-600-normal.css");\n'
    )
    assert found.notes == ["@fontsource/poppins@5.0.0 has no file 900.css"]
    vendor.materialize([found], tmp_path / "run")
    assert (tmp_path / "run" / found.entry).read_text() == found.stylesheet
    assert (tmp_path / "run/@fontsource/poppins@5.0.0/files/p-600.woff2").read_text() == "6"


def test_a_broken_manifest_names_file_and_fix(tmp_path):
    assert vendor.read_manifest(tmp_path) == []
    (tmp_path / "vendor.json").write_text("{")
    with pytest.raises(InfrastructureError, match=r"vendor.json: field 'vendored'.*import"):
        vendor.read_manifest(tmp_path)
