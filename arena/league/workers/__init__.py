"""What plays a match: a self-contained `MatchTask` (`match_task`), played in a worker
process (`worker`), handed out by one executor interface for local processes or a Dask
cluster (`executors`, `cluster_plugin`), with command bots shipped to a cluster as
content-addressed archives (`bot_archives`) and the match in flight written to a live
file for the web pages (`live`)."""
