-- posgeo counts table with DuckDB (docs/SCALE.md; the table format is docs/MATH.md §2b).
--
-- Computes, from a text, JSON Lines or Parquet corpus, the table (position, token, count,
-- first) that `posgeo count --tokenizer whitespace` writes: one sequence per non-empty line
-- (a trailing \r dropped) or per record, tokens split on Unicode White_Space (Rust's
-- split_whitespace), each token lowercased, positions below max_len; in pad mode, <pad> rows
-- for the positions past each sequence's end. `first` is the index of the first sequence
-- with that token at that position (what makes `posgeo analyze --counts` exact).
--
-- Run it with the variables set first, e.g. in the duckdb shell or Python:
--   SET VARIABLE input   = 'corpus.txt';   -- the corpus
--   SET VARIABLE format  = 'text';         -- 'text', 'jsonl' or 'parquet'
--   SET VARIABLE field   = 'text';         -- the JSONL field or Parquet column (not for text)
--   SET VARIABLE max_len = 512;
--   SET VARIABLE mode    = 'condition';    -- or 'pad'
--   SET VARIABLE output  = 'counts.csv';   -- .csv, .csv.gz or .parquet
--   .read scripts/engines/counts.sql
-- (scripts/engines/duckdb_counts.py does exactly this from the command line.)

-- The input, quoted for the readers below.
SET VARIABLE posgeo_path = '''' || replace(getvariable('input'), '''', '''''') || '''';

-- One row per record in input order: (ord, text); text lines keep their order number.
CREATE OR REPLACE TEMP TABLE posgeo_records AS
SELECT * FROM query(CASE getvariable('format')
    WHEN 'parquet' THEN
        'SELECT file_row_number AS ord, "' || getvariable('field') || '" AS text FROM read_parquet('
            || getvariable('posgeo_path') || ', file_row_number = true)'
    WHEN 'jsonl' THEN
        'SELECT ord, CASE WHEN trim(line) = '''' THEN NULL ELSE json_extract_string(line, ''$."'
            || getvariable('field') || '"'') END AS text FROM (SELECT unnest(l) AS line, generate_subscripts(l, 1) AS ord '
            || 'FROM (SELECT string_split(content, chr(10)) AS l FROM read_text(' || getvariable('posgeo_path') || ')))'
    ELSE
        'SELECT ord, regexp_replace(line, ''\r$'', '''') AS text FROM (SELECT unnest(l) AS line, generate_subscripts(l, 1) AS ord '
            || 'FROM (SELECT string_split(content, chr(10)) AS l FROM read_text(' || getvariable('posgeo_path') || ')))'
END);

-- One row per sequence: its index, its tokens (Unicode White_Space runs split, empty pieces
-- dropped, each token lowercased) and its length below max_len.
CREATE OR REPLACE TEMP TABLE posgeo_sequences AS
WITH seqs AS (
    SELECT row_number() OVER (ORDER BY ord) - 1 AS seq, text
    FROM posgeo_records
    WHERE text IS NOT NULL AND text <> ''
)
SELECT seq, toks, least(len(toks), getvariable('max_len')) AS length
FROM (SELECT seq,
             list_transform(list_filter(
                 string_split_regex(text, '[\t\n\x{0B}\f\r \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+'),
                 lambda t: t <> ''), lambda t: lower(t)) AS toks
      FROM seqs);

CREATE OR REPLACE TEMP TABLE posgeo_counts AS
SELECT position, token, count(*) AS count, min(seq) AS first
FROM (SELECT seq, unnest(toks) AS token, generate_subscripts(toks, 1) - 1 AS position FROM posgeo_sequences)
WHERE position < getvariable('max_len')
GROUP BY position, token
UNION ALL
-- pad mode: a sequence of length l contributes <pad> at positions l .. max_len-1
SELECT p.position, '<pad>' AS token, count(*) AS count, min(s.seq) AS first
FROM posgeo_sequences s, range(0, getvariable('max_len')) p(position)
WHERE getvariable('mode') = 'pad' AND p.position >= s.length
GROUP BY p.position;

-- A literal <pad> token adds to the padding in pad mode (as in posgeo).
COPY (SELECT position, token, sum(count)::BIGINT AS count, min(first) AS first
      FROM posgeo_counts GROUP BY position, token ORDER BY position, token)
TO (getvariable('output'));  -- CSV gets a header row (DuckDB's default), .gz gzip, .parquet Parquet
