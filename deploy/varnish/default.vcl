vcl 4.1;

import std;

# Varnish in front of the calendar events service (docs/caching.md, "A CDN or reverse proxy in front").
# It keeps what the service lets shared caches keep (Cache-Control: s-maxage on anonymous answers), never a request
# with credentials (Varnish's built-in vcl_recv passes Authorization and Cookie), and forgets the answers tagged with
# what a write changed when the service sends `BAN` with those tags (CDN_PURGE_URL=http://<this varnish>/,
# CDN_PURGE_STYLE=ban). Set the backend to where the service listens (test/cdn-varnish.test.ts rewrites its port).

backend default {
    .host = "127.0.0.1";
    .port = "4000";
}

# Who may purge: the service's hosts. Nobody else can empty the cache.
acl purgers {
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "BAN") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        # Tags are the service's own (`event`, `event:12`): letters, digits, `:`, `_` and `-`, space-separated. Anything
        # else is refused, so that a tag is never read as a regular expression.
        if (req.http.Surrogate-Key !~ "^[A-Za-z0-9:_-]+( [A-Za-z0-9:_-]+)*$") {
            return (synth(400, "Surrogate-Key must list tags"));
        }
        # Every object whose Surrogate-Key holds one of the tags as a whole word (`event:1` is not `event:12`, nor
        # `event`), the header being space-separated. (A ban expression is split at spaces, even in quotes: the
        # regular expression names the space by its class.) The ban lurker tests objects in the background: the
        # rule names obj.* only. A ban that could not be added is a failed purge, which the service retries.
        if (std.ban("obj.http.Surrogate-Key ~ (^|[[:space:]])(" + regsuball(req.http.Surrogate-Key, " ", "|") +
                ")([[:space:]]|$)")) {
            return (synth(200, "Banned"));
        }
        return (synth(500, std.ban_error()));
    }
    # Varnish's built-in vcl_recv follows: it passes requests with Authorization or Cookie, and methods other than
    # GET and HEAD, to the service without looking in the cache.
}

sub vcl_backend_response {
    # Only what the service marked for shared caches is kept: a Surrogate-Key and an s-maxage. (The built-in rules
    # already refuse private, no-cache and no-store answers, and those setting cookies.)
    if (!beresp.http.Surrogate-Key || beresp.http.Cache-Control !~ "s-maxage=[1-9]") {
        set beresp.uncacheable = true;
        set beresp.ttl = 120s;
        return (deliver);
    }
}

sub vcl_deliver {
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    # The tags are for purging here, not for clients (nor for a cache after this one).
    unset resp.http.Surrogate-Key;
    unset resp.http.Cache-Tag;
}
