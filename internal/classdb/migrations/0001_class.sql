-- The class: students by key, where each is in each lesson, and every
-- answer given. Times are Unix milliseconds (UTC).
CREATE TABLE students (
	key        TEXT PRIMARY KEY,          -- SHA256 fingerprint of the SSH key
	name       TEXT NOT NULL DEFAULT '',  -- the authorized_keys comment
	first_seen INTEGER NOT NULL,
	last_seen  INTEGER NOT NULL,
	lesson     TEXT NOT NULL DEFAULT ''   -- the lesson last opened
) STRICT;

CREATE TABLE progress (
	student    TEXT NOT NULL REFERENCES students(key),
	lesson     TEXT NOT NULL,
	step       INTEGER NOT NULL,          -- 0-based; = steps when finished
	steps      INTEGER NOT NULL,
	step_since INTEGER NOT NULL,          -- when the student reached step
	updated    INTEGER NOT NULL,
	PRIMARY KEY (student, lesson)
) STRICT;

CREATE TABLE answers (
	id      INTEGER PRIMARY KEY,
	student TEXT NOT NULL REFERENCES students(key),
	lesson  TEXT NOT NULL,
	step    INTEGER NOT NULL,
	answer  TEXT NOT NULL,
	correct INTEGER NOT NULL,             -- 1 right, 0 wrong
	at      INTEGER NOT NULL
) STRICT;

CREATE INDEX answers_by_student ON answers (student, lesson, step);
