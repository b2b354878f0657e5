-- +goose Up
-- What is trending: the uses of each hashtag in hourly buckets (the
-- core's tags.Trending: a bucket is created_at / 3,600,000), kept for the
-- last 48 buckets; older rows are deleted as new buckets begin.
CREATE TABLE roar_tag_uses (
    tag    TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    uses   INTEGER NOT NULL,
    PRIMARY KEY (tag, bucket)
);
CREATE INDEX roar_tag_uses_bucket ON roar_tag_uses (bucket);
-- The roars of the last 48 hours count from the start.
INSERT INTO roar_tag_uses (tag, bucket, uses)
SELECT t.tag, r.created_at / 3600000, count(*)
FROM roar_tags t JOIN roars r ON r.id = t.roar_id
WHERE r.created_at / 3600000 > CAST(strftime('%s', 'now') AS INTEGER) / 3600 - 48
GROUP BY t.tag, r.created_at / 3600000;

-- +goose Down
DROP TABLE roar_tag_uses;
