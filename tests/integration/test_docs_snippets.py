"""Every ```python and ```sql snippet of the README and the documentation's pages runs as written,
one fresh Python process per page (tests/docs_snippets.py says what a page may rely on)."""

import docs_snippets as snippets
import pytest

PAGES = snippets.pages()


@pytest.mark.parametrize("page", PAGES, ids=[snippets.page_name(page) for page in PAGES])
def test_the_snippets_of_the_page_run_as_written(page, tmp_path):
    try:
        blocks = snippets.extract_blocks(page.read_text(encoding="utf-8"), snippets.page_name(page))
    except snippets.SnippetSyntaxError as error:
        pytest.fail(str(error), pytrace=False)
    if not blocks:
        pytest.skip(f"{snippets.page_name(page)} has no python or sql block")
    result = snippets.run_page(page, tmp_path)
    if not result.ok:
        pytest.fail(result.report(), pytrace=False)
