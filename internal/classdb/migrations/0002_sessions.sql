-- Sessions a student opened, so that the report tells attendance apart
-- from progress.
ALTER TABLE students ADD COLUMN sessions INTEGER NOT NULL DEFAULT 0;
