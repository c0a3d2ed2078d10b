"""A World at War rule 60 (Russian Surrender) on the engine: 60.1 (table, offer, Germany's choice), 60.2-60.5
(effects), 60.6 (BRP grants), 60.7 (Japan), 60.8 (afterwards, validation), 60.9 (Pacific scenarios)."""
