-- Schema 9: why each session answer stopped, so that a session reloaded
-- shows an answer cut short as cut short. Turns recorded before have none
-- (''), as an answer the model finished.
ALTER TABLE session_turns ADD COLUMN stop_reason TEXT NOT NULL DEFAULT '';
