wrk.method = "POST"
wrk.body = string.rep("x", 65536)
wrk.headers["Content-Type"] = "application/octet-stream"
