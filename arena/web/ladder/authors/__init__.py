"""The ladder site's author side: sign-in and sessions, the forms and uploads, the
author's own pages, and the API's write side (docs/ladder.md, "The author's side")."""
