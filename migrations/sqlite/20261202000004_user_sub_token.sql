-- The panel shows each user's subscription link (and its QR code) on the
-- user card, so the token itself is kept beside its hash (which stays the
-- lookup key for /sub/{token}). Users provisioned before this migration
-- have NULL until their token is given again or reissued.
ALTER TABLE users ADD COLUMN sub_token TEXT;
