"""Who is ahead, from the stored evidence: TrueSkill ratings (`ratings`), duplicate
margins and their intervals (`stats`), the stopping rule (`separation`) and every
pair's head-to-head with the places it leaves tied (`crosstable`)."""
