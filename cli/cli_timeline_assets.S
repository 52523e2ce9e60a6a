/*
 * cli/cli_timeline_assets.S: the parts of `hindsight timeline`'s page,
 * built into the binary (cli/cli_timeline.c puts them together): the
 * template, its style and script (web/), and d3 as npm installed it
 * (web/node_modules, from web/package-lock.json; docs/DEPENDENCIES.md).
 * Each is the bytes of its file between NAME and NAME_end.
 */
	.section .rodata
#define ASSET(name, file) \
	.global name, name##_end; \
	.balign 16; \
name: \
	.incbin file; \
name##_end: \
	.byte 0

ASSET(hs_asset_page, "web/timeline.html")
ASSET(hs_asset_css, "web/timeline.css")
ASSET(hs_asset_js, "web/timeline.js")
ASSET(hs_asset_d3, "web/node_modules/d3/dist/d3.min.js")

	.section .note.GNU-stack,"",@progbits
