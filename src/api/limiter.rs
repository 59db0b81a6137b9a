//! The rate limiter a deployment uses: in-process (one instance) or Redis (a fleet shares the
//! limits: every instance runs the same atomic GCRA script against the same keys).

use super::limits::{RateLimitInfo, RateLimiter, RateWindow};
use std::time::Duration;

/// An atomic dual-window GCRA. KEYS: one per window. ARGV: emission interval and period (µs)
/// per window. Time comes from the Redis server, so every instance agrees on it. Returns
/// {allowed (0|1), window index (1-based), remaining or wait (µs), tat (µs since the epoch)}.
const GCRA_LUA: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = #KEYS
local tats = {}
local worst_wait, worst_i = -1, 0
for i = 1, n do
  local T = tonumber(ARGV[2 * i - 1])
  local P = tonumber(ARGV[2 * i])
  local tat = tonumber(redis.call('GET', KEYS[i]) or '0')
  if tat < now then tat = now end
  tats[i] = tat
  if tat - now > P - T then
    local wait = tat - now - (P - T)
    if wait > worst_wait then worst_wait, worst_i = wait, i end
  end
end
if worst_i > 0 then return {0, worst_i, worst_wait, tats[worst_i]} end
local best_rem, best_i, best_tat = -1, 1, 0
for i = 1, n do
  local T = tonumber(ARGV[2 * i - 1])
  local P = tonumber(ARGV[2 * i])
  local new_tat = tats[i] + T
  redis.call('SET', KEYS[i], string.format('%d', new_tat), 'PX', math.floor(P / 1000) + 1000)
  local rem = math.floor((now + P - new_tat) / T)
  if best_rem < 0 or rem < best_rem then best_rem, best_i, best_tat = rem, i, new_tat end
end
return {1, best_i, best_rem, best_tat}
"#;

/// The configured limiter.
#[derive(Debug)]
pub enum Limiter {
    Local(RateLimiter),
    Redis(RedisLimiter),
}

/// Limits shared through Redis.
pub struct RedisLimiter {
    windows: Vec<RateWindow>,
    conn: redis::aio::ConnectionManager,
    script: redis::Script,
}

impl std::fmt::Debug for RedisLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisLimiter").field("windows", &self.windows).finish()
    }
}

impl Limiter {
    /// `memory` (the default) or a `redis://` URL.
    pub async fn connect(backend: &str, windows: Vec<RateWindow>) -> Result<Limiter, redis::RedisError> {
        if backend.is_empty() || backend == "memory" {
            return Ok(Limiter::Local(RateLimiter::new(windows)));
        }
        let client = redis::Client::open(backend)?;
        let conn = redis::aio::ConnectionManager::new(client).await?;
        let windows = windows.into_iter().filter(|w| w.limit > 0 && !w.period.is_zero()).collect();
        Ok(Limiter::Redis(RedisLimiter { windows, conn, script: redis::Script::new(GCRA_LUA) }))
    }

    /// Admits one request for `key` if every window allows it.
    pub async fn check(&self, key: &str) -> Result<RateLimitInfo, RateLimitInfo> {
        match self {
            Limiter::Local(l) => l.check(key),
            Limiter::Redis(r) => r.check(key).await,
        }
    }
}

impl RedisLimiter {
    async fn check(&self, key: &str) -> Result<RateLimitInfo, RateLimitInfo> {
        let now_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_secs();
        if self.windows.is_empty() {
            return Ok(RateLimitInfo { limit: 0, remaining: 0, reset_epoch: now_epoch, retry_after: None });
        }
        let mut invocation = self.script.prepare_invoke();
        for (i, w) in self.windows.iter().enumerate() {
            let period = w.period.as_micros() as u64;
            invocation.key(format!("sitescan:rl:{key}:{i}:{}:{period}", w.limit));
            invocation.arg((period / u64::from(w.limit)).max(1)).arg(period);
        }
        let mut conn = self.conn.clone();
        let reply: Result<Vec<i64>, _> = invocation.invoke_async(&mut conn).await;
        match reply {
            Ok(v) if v.len() == 4 => {
                let window = self.windows[(v[1].max(1) as usize - 1).min(self.windows.len() - 1)];
                let reset_epoch = (v[3].max(0) as u64).div_ceil(1_000_000);
                if v[0] == 1 {
                    Ok(RateLimitInfo { limit: u64::from(window.limit), remaining: v[2].max(0) as u64, reset_epoch, retry_after: None })
                } else {
                    Err(RateLimitInfo {
                        limit: u64::from(window.limit),
                        remaining: 0,
                        reset_epoch,
                        retry_after: Some(Duration::from_micros(v[2].max(1) as u64)),
                    })
                }
            }
            other => {
                // Fail open: a Redis outage must not take the API down. Logged for operators.
                tracing::warn!(error = ?other.err(), "rate limiter backend unavailable; request admitted");
                Ok(RateLimitInfo { limit: 0, remaining: 0, reset_epoch: now_epoch, retry_after: None })
            }
        }
    }
}
