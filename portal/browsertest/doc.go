// Package browsertest drives the portal in a real browser, for the tests
// in this folder: Debian's chromium, headless, through chromedp, against
// a real sello server in the test's process (StartServer: the API, the
// portal and the job runner with the lifecycle's worker on one loopback
// listener, on SQLite, or on PostgreSQL with Options.PostgreSQL).
//
// One browser serves a whole test binary (Main, from TestMain, closes it
// at the end); each Page is a tab in a browser context of its own, with
// its own cookies. Its helpers open pages, fill forms, click, wait for
// htmx's swaps and read text, and fail the test when the browser cannot.
// Page.Look checks a page as a person would meet it: axe-core (npm,
// pinned in tools/package.json) finds no serious or critical
// accessibility violation at a laptop's and a phone's size, the console
// holds no error (a CSP violation, a failed load), the page with its
// assets weighs under 200 KB, and its screenshots in docs/portal/ are
// there (written anew with SELLO_UPDATE_SCREENSHOTS=1).
//
// Without chromium (apt-get install chromium) or npm the tests are
// skipped with a message saying so; in CI (CI or SELLO_REQUIRE_ORACLES
// set) they fail instead, as the oracle package does for every program
// tests check Sello against. docs/portal.md says how to run them.
package browsertest
