"""The documentation snippet runner's reading of pages, without Spark: which fences run, how SQL
blocks split into statements, which page lines errors name, and the fixture tables."""

import textwrap
import traceback

import docs_snippets as snippets
import pytest
from docs_snippets import Block, Statement, extract_blocks, python_source, split_sql

PAGE = textwrap.dedent(
    """\
    # A page

    ```python
    x = 1
    ```

    ```sh
    make build
    ```

    Text with ```inline``` code.

    ```sql
    SELECT 1;
    ```

    - A list item:

      ```python
      y = x + 1
      ```

    ~~~~python title="four tildes"
    s = '''
    ```
    '''
    ~~~~

    ```{.python .copy}
    z = 3
    ```

    ```text
    ```python
    ```

    ```PySQL
    not run
    ```

    ```Py
    w = 4
    ```
    """
)


def test_python_and_sql_fences_run_and_others_do_not():
    blocks = extract_blocks(PAGE)
    assert [(block.language, block.line) for block in blocks] == [
        ("python", 3),
        ("sql", 13),
        ("python", 19),
        ("python", 23),
        ("python", 29),
        ("python", 41),
    ]
    assert blocks[0].code == "x = 1\n"
    assert blocks[0].first_line == 4
    assert blocks[1].code == "SELECT 1;\n"


def test_an_indented_fence_loses_its_indentation_and_a_longer_fence_holds_shorter_ones():
    blocks = extract_blocks(PAGE)
    assert blocks[2].code == "y = x + 1\n"
    assert blocks[3].code == "s = '''\n```\n'''\n"
    assert blocks[4].code == "z = 3\n"


def test_a_text_fence_hides_a_python_fence_inside_it():
    text = "````text\n```python\nraise SystemExit\n```\n````\n"
    assert extract_blocks(text) == []


def test_a_fence_never_closed_names_its_line():
    with pytest.raises(snippets.SnippetSyntaxError, match=r"page\.md:3: the ``` fence"):
        extract_blocks("text\n\n```python\nx = 1\n", "page.md")


def test_python_source_keeps_page_lines_in_tracebacks():
    block = Block("python", 10, "a = 1\n\nb = a / 0\n")
    code = compile(python_source(block), "page.md", "exec")
    with pytest.raises(ZeroDivisionError) as error:
        exec(code, {})
    frames = traceback.extract_tb(error.value.__traceback__)
    assert [frame.lineno for frame in frames if frame.filename == "page.md"] == [13]


def test_an_interactive_block_runs_its_prompts_and_skips_the_output():
    block = Block(
        "python",
        1,
        ">>> values = [1, 2]\n"
        ">>> for v in values:\n"
        "...     print(v)\n"
        "1\n"
        "2\n"
        ">>> total = sum(values)\n"
        ">>> total\n"
        "3\n",
    )
    source = python_source(block)
    assert source.splitlines()[1:4] == ["values = [1, 2]", "for v in values:", "    print(v)"]
    assert source.splitlines()[4:6] == ["", ""]
    namespace: dict = {}
    exec(compile(source, "page.md", "exec"), namespace)
    assert namespace["total"] == 3


def test_an_ordinary_block_with_an_ellipsis_is_left_as_written():
    block = Block("python", 1, "x = ...\n...\n")
    assert python_source(block) == "\nx = ...\n...\n"


def test_sql_splits_on_semicolons_outside_strings_identifiers_and_comments():
    code = textwrap.dedent(
        """\
        SELECT 'a;b', "c;d", `e;f` FROM t;  -- a comment; with a semicolon
        /* a block comment;
           over two lines */
        SELECT /*+ BROADCAST(g) */ p.id FROM pings p JOIN geo g
          ON p.ip >= g.ip_from AND p.ip < g.ip_to;

        -- a comment only
        ;
        SELECT 'it''s; here', 'back\\'slash;' -- trailing
        """
    )
    statements = split_sql(code, first_line=20)
    assert statements == [
        Statement(20, "SELECT 'a;b', \"c;d\", `e;f` FROM t"),
        Statement(
            23,
            "SELECT /*+ BROADCAST(g) */ p.id FROM pings p JOIN geo g\n"
            "  ON p.ip >= g.ip_from AND p.ip < g.ip_to",
        ),
        Statement(28, "SELECT 'it''s; here', 'back\\'slash;' -- trailing"),
    ]


def test_a_statement_starts_after_its_leading_comments_and_comment_only_blocks_are_empty():
    code = "-- band join: BETWEEN is two inequalities\nSELECT 1\n"
    assert split_sql(code, first_line=5) == [Statement(6, "SELECT 1")]
    assert split_sql("-- nothing to run\n/* nor here; */\n;\n", first_line=1) == []


def test_the_readme_is_a_page_and_comes_first():
    found = snippets.pages()
    assert found and found[0].name == "README.md" and snippets.page_name(found[0]) == "README.md"


def test_pages_follow_the_globs(tmp_path):
    (tmp_path / "docs" / "user-guide").mkdir(parents=True)
    for name in ("README.md", "docs/index.md", "docs/user-guide/b.md", "docs/user-guide/a.md"):
        (tmp_path / name).write_text("# page\n")
    (tmp_path / "docs" / "other.md").write_text("# not run\n")
    names = [str(path.relative_to(tmp_path)) for path in snippets.pages(tmp_path)]
    assert names == ["README.md", "docs/index.md", "docs/user-guide/a.md", "docs/user-guide/b.md"]


SCHEMAS = {
    "employees": "id bigint, salary double, tax double",
    "events": "id bigint, start bigint, end bigint",
    "a": "id bigint, v bigint, t bigint, k bigint, x double, day date",
    "b": "id bigint, v bigint, t bigint, k bigint, x double, day date",
    "pings": "id bigint, ip bigint",
    "geo": "ip_from bigint, ip_to bigint, country string",
    "facts": "id bigint, k bigint, day date",
    "dim": "k bigint, name string, valid_from date, valid_to date",
    "orders": "id bigint, day date",
    "shipments": "id bigint, day date",
    "trades": "symbol string, ts timestamp, price double",
    "quotes": "symbol string, quote_ts timestamp, bid double",
}
ARROW_TYPES = {
    "bigint": "int64",
    "double": "double",
    "string": "string",
    "date": "date32[day]",
    "timestamp": "timestamp[us, tz=UTC]",  # Spark reads it as TIMESTAMP, not TIMESTAMP_NTZ
}


def test_the_fixture_tables_have_the_documented_columns_and_the_same_rows_every_time():
    pytest.importorskip("pyarrow")
    tables = snippets.fixture_tables()
    assert set(tables) == set(SCHEMAS)
    for name, schema in SCHEMAS.items():
        expected = [tuple(column.split()) for column in schema.split(", ")]
        actual = [(field.name, str(field.type)) for field in tables[name].schema]
        assert actual == [(column, ARROW_TYPES[kind]) for column, kind in expected], name
        assert 50 <= tables[name].num_rows <= 5000, name
    assert snippets.fixture_tables()["employees"].equals(tables["employees"])
    valid_to = tables["dim"].column("valid_to").to_pylist()
    assert valid_to.count(None) == len(set(tables["dim"].column("k").to_pylist()))


# Every join shape of the pages finds some rows, and not so many that collecting them is slow.
SHAPES = {
    "anomaly": "FROM employees r JOIN employees s ON r.salary < s.salary AND r.tax > s.tax",
    "band": "FROM a JOIN b ON a.v BETWEEN b.v - 5 AND b.v + 5",
    "overlap": 'FROM events r JOIN events s ON r.start <= s."end" AND r."end" >= s.start '
    "AND r.id <> s.id",
    "point in range": "FROM pings p JOIN geo g ON p.ip >= g.ip_from AND p.ip < g.ip_to",
    "tolerance": "FROM a JOIN b ON abs(a.t - b.t) <= 5",
    "keyed tolerance": "FROM a JOIN b ON a.k = b.k AND a.x - b.x BETWEEN -0.5 AND 0.5",
    "within days": "FROM orders o JOIN shipments s ON s.day - o.day BETWEEN 0 AND 7",
    "days of a and b": "FROM a JOIN b ON b.day - a.day BETWEEN 0 AND 7",
    "type-2 dimension": "FROM facts f JOIN dim d ON f.k = d.k AND f.day >= d.valid_from "
    "AND (f.day < d.valid_to OR d.valid_to IS NULL)",
    "as-of": "FROM trades t ASOF JOIN quotes q ON t.symbol = q.symbol AND t.ts >= q.quote_ts "
    "WHERE t.ts - q.quote_ts <= INTERVAL 1 MINUTE",
}


def test_every_join_shape_matches_some_rows_of_the_fixtures(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    snippets.write_fixtures(tmp_path)
    connection = duckdb.connect()
    for name in SCHEMAS:
        path = tmp_path / f"{name}.parquet"
        connection.execute(f"CREATE VIEW \"{name}\" AS SELECT * FROM read_parquet('{path}')")
    for shape, query in SHAPES.items():
        (count,) = connection.execute(f"SELECT count(*) {query}").fetchall()[0]
        assert 20 <= count <= 20000, (shape, count)
