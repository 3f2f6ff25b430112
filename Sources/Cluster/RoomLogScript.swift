/// The Lua script that keeps the cluster's shared room logs in Redis. Redis runs a script atomically, so every
/// check and every append in one call happens at once for all nodes: the sequence numbers, the seat count behind
/// `ERR_CALL_FULL` and device ownership cannot race.
///
/// Keys, for a prefix `P` and a room `R`; every key of a room carries the room as a hash tag (`{R}`), so in a Redis
/// Cluster all of them, and the room's channel, are in one slot:
/// - `P:room:{R}:seq` the room's last sequence number; `P:room:{R}:epoch` an id that changes when the room's records
///   start afresh (they expired or were flushed), so nodes never mix two histories;
/// - `P:room:{R}:log` the log, a stream whose entry ids are `SEQ-0`, each with the entry's JSON (`e`) and time (`t`),
///   also published on the channel `P:room:{R}` (the entries of one call in one message, one a line; `SPUBLISH` in a
///   Redis Cluster);
/// - `P:room:{R}:devices` joined devices (`uid\ndevice` → seat class `p` or `r`), `P:room:{R}:seats:p` and
///   `P:room:{R}:seats:r` joined users by class (uid → devices), `P:room:{R}:own` the node holding each device;
/// - `P:room:{R}:ckpt` the latest checkpoint (`seq`, `epoch`, `data`).
///
/// What spans rooms, in keys of its own:
/// - `P:rooms` every room by the time of its last entry (what webhooks in a cluster look at for new entries), kept by
///   the `index` mode after the appends and by `forget` at each lease renewal;
/// - `P:{nodes}` live nodes by lease end, `P:{nodes}:dead` nodes past their lease by the end of the grace period,
///   `P:{nodes}:N:rooms` the rooms where node N took devices (added to before its appends, pruned after its lease
///   renewal, read by the reaper): one slot for the nodes' records.
///
/// Each call's first key (`KEYS[1]`) is the room's base key `P:room:{R}` for the modes of one room (`append`, `reap`,
/// `holds`, `touch`, `checkpoint`), `P:{nodes}` for `lease` and `reaped`, `P:rooms` for `index` and `forget`: it
/// routes the call to the slot's node, and every key the call touches is in that slot. No call touches two rooms:
/// the reaper's `lease` call names the dead nodes' rooms, and the caller reaps each with a `reap` call of its own.
///
/// An `append` call carries a batch of proposals of one room, each checked and appended in turn (all or none of a
/// proposal's events), as separate calls one after the other would. The room's keys' expiry is refreshed when the
/// sequence key's remaining time fell below three quarters of the expiry (or keys may have been created), and the
/// log is trimmed by age every 16 entries, by count once per call. A call's entries are published in one
/// message on the room's channel, one entry (JSON) a line.
enum RoomLogScript {
    static let source = #"""
        -- ARGV: mode, prefix, the publish command (PUBLISH, or SPUBLISH in a Redis Cluster), then the mode's arguments;
        -- A is ARGV without the publish command, so the modes' arguments below start at A[3].
        local mode, prefix, publish = ARGV[1], ARGV[2], ARGV[3]
        local A = {mode, prefix}
        for i = 4, #ARGV do A[i - 1] = ARGV[i] end
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
        local TRIM_EVERY = 16

        local function keys(room)
          local base = prefix .. ':room:{' .. room .. '}'
          return {
            seq = base .. ':seq', epoch = base .. ':epoch', log = base .. ':log', devices = base .. ':devices',
            seats_p = base .. ':seats:p', seats_r = base .. ':seats:r', own = base .. ':own', ckpt = base .. ':ckpt',
            channel = base, id = room
          }
        end

        local live_nodes, dead_nodes = prefix .. ':{nodes}', prefix .. ':{nodes}:dead'
        local function node_rooms(node) return prefix .. ':{nodes}:' .. node .. ':rooms' end

        local function touch(k, expiry)
          if expiry > 0 then
            for _, name in ipairs({'seq', 'epoch', 'log', 'devices', 'seats_p', 'seats_r', 'own', 'ckpt'}) do
              redis.call('PEXPIRE', k[name], expiry)
            end
          end
        end

        -- Refreshes the room's expiry lazily: only when the sequence key has less than three quarters of it left (or
        -- none: new, or created without it), or when keys may have been created (`force`).
        local function refresh(k, expiry, force)
          if expiry <= 0 then return end
          if not force then
            local left = redis.call('PTTL', k.seq)
            if left >= 0 and left >= expiry * 3 / 4 then return end
          end
          touch(k, expiry)
        end

        -- Seat and ownership bookkeeping, mirroring the reducer: a user takes one seat of their class while any of their
        -- devices is in the call.
        local function device_leaves(k, uid, device)
          local field = uid .. '\n' .. device
          local class = redis.call('HGET', k.devices, field)
          if not class then return end
          redis.call('HDEL', k.devices, field)
          local seats = class == 'r' and k.seats_r or k.seats_p
          if redis.call('HINCRBY', seats, uid, -1) <= 0 then redis.call('HDEL', seats, uid) end
          redis.call('HDEL', k.own, field)
        end

        -- Applies an event's seat and ownership effect; true when it may have created keys.
        local function effect(k, node, op, uid, device, class)
          if op == 'J' then
            local field = uid .. '\n' .. device
            if not redis.call('HGET', k.devices, field) then
              redis.call('HSET', k.devices, field, class)
              redis.call('HINCRBY', class == 'r' and k.seats_r or k.seats_p, uid, 1)
            end
            redis.call('HSET', k.own, field, node)
            return true
          elseif op == 'R' then
            local field = uid .. '\n' .. device
            if redis.call('HGET', k.devices, field) then redis.call('HSET', k.own, field, node) end
            return true
          elseif op == 'L' then
            device_leaves(k, uid, device)
          elseif op == 'A' then
            local all = redis.call('HKEYS', k.devices)
            for _, field in ipairs(all) do
              local cut = string.find(field, '\n', 1, true)
              if cut and string.sub(field, 1, cut - 1) == uid then device_leaves(k, uid, string.sub(field, cut + 1)) end
            end
          elseif op == 'E' then
            redis.call('DEL', k.devices, k.seats_p, k.seats_r, k.own)
          end
          return false
        end

        -- A writer of one room's entries within a call: numbers them from the room's last sequence number and stores
        -- each, and on `finish` publishes them in one message (one entry a line), stores the new last number, trims the
        -- log (never past the checkpoint; by age once per TRIM_EVERY entries) and refreshes the expiry.
        local function writer(k, max_entries, max_age, expiry)
          local w = {first = tonumber(redis.call('GET', k.seq) or '0'), created = false, published = {}}
          w.last = w.first
          function w.emit(event, actor, reason)
            if not w.epoch then
              w.epoch = redis.call('GET', k.epoch)
              if w.last == 0 or not w.epoch then
                -- Unique for the room: its records cannot start afresh twice within one microsecond.
                w.epoch = tostring(now) .. '-' .. time[2]
                redis.call('SET', k.epoch, w.epoch)
                w.created = true
              end
              w.epoch_json = cjson.encode(w.epoch)
            end
            w.last = w.last + 1
            local seq = w.last
            local json = '{"seq":' .. seq .. ',"time":' .. now .. ',"epoch":' .. w.epoch_json
              .. ',"actor":' .. (actor ~= '' and cjson.encode(actor) or 'null')
              .. ',"reason":' .. (reason ~= '' and cjson.encode(reason) or 'null') .. ',"event":' .. event .. '}'
            redis.call('XADD', k.log, seq .. '-0', 'e', json, 't', now)
            table.insert(w.published, json)
            return seq, json
          end
          function w.finish(force)
            if w.last == w.first then return end
            redis.call(publish, k.channel, table.concat(w.published, '\n'))
            if w.first == 0 then redis.call('SET', k.seq, w.last) else redis.call('INCRBY', k.seq, w.last - w.first) end
            local checkpoint = tonumber(redis.call('HGET', k.ckpt, 'seq') or '0')
            local keep = math.min(w.last - max_entries + 1, checkpoint + 1)
            if max_age > 0 and math.floor(w.last / TRIM_EVERY) > math.floor(w.first / TRIM_EVERY) then
              -- The oldest entry first: only when it is past the age are more looked at.
              local oldest = redis.call('XRANGE', k.log, '-', '+', 'COUNT', 1)
              local first_time = oldest[1] and tonumber(oldest[1][2][4])
              if first_time and now - first_time > max_age then
                oldest = redis.call('XRANGE', k.log, '-', '+', 'COUNT', 2 * TRIM_EVERY)
              else
                oldest = {}
              end
              for _, item in ipairs(oldest) do
                local item_seq = tonumber(string.match(item[1], '^(%d+)'))
                local item_time = tonumber(item[2][4])
                if item_seq <= checkpoint and item_time and now - item_time > max_age then
                  keep = math.max(keep, item_seq + 1)
                end
              end
            end
            if keep > 1 then redis.call('XTRIM', k.log, 'MINID', keep .. '-0') end
            refresh(k, expiry, force or w.created or w.first == 0)
          end
          return w
        end

        if mode == 'append' then
          -- A: mode, prefix, room, node, max entries, max age, expiry, then per proposal: expected seq or '', its
          -- number of events, then per event: JSON, actor, reason, op (J R L A E K or -), and unless the op is - (no
          -- seat or device effect, no condition): uid, device, seat class, capacity, needs ownership (1 or 0); K is
          -- an event without effect about a device. The reply, per proposal: status (OK FULL CONFLICT), last sequence
          -- number, number of entries, the entries.
          local room, node = A[3], A[4]
          local max_entries, max_age, expiry = tonumber(A[5]), tonumber(A[6]), tonumber(A[7])
          local k = keys(room)
          local w = writer(k, max_entries, max_age, expiry)
          local created = false
          local reply = {}
          local i = 8
          while i <= #A do
            local expected, count = A[i], tonumber(A[i + 1])
            i = i + 2
            local events = {}
            for _ = 1, count do
              local op = A[i + 3]
              if op == '-' then
                table.insert(events, {json = A[i], actor = A[i + 1], reason = A[i + 2], op = op})
                i = i + 4
              else
                table.insert(events, {json = A[i], actor = A[i + 1], reason = A[i + 2], op = op,
                  uid = A[i + 4], device = A[i + 5], class = A[i + 6], cap = tonumber(A[i + 7]),
                  owned = A[i + 8] == '1'})
                i = i + 9
              end
            end
            -- Every condition of a proposal is checked before anything of it is written: all or none.
            local status = 'OK'
            if expected ~= '' and tonumber(expected) ~= w.last then status = 'CONFLICT' end
            local in_call, users, counts = {}, {}, {}
            local function device_in(uid, device)
              local field = uid .. '\n' .. device
              if in_call[field] == nil then in_call[field] = redis.call('HGET', k.devices, field) or false end
              return in_call[field]
            end
            local function user_devices(class, uid)
              local key = class .. '\n' .. uid
              if users[key] == nil then
                users[key] = tonumber(redis.call('HGET', class == 'r' and k.seats_r or k.seats_p, uid) or '0')
              end
              return users[key]
            end
            local function seats(class)
              if counts[class] == nil then counts[class] = redis.call('HLEN', class == 'r' and k.seats_r or k.seats_p) end
              return counts[class]
            end
            for _, e in ipairs(events) do
              if status ~= 'OK' then break end
              if e.owned and redis.call('HGET', k.own, e.uid .. '\n' .. e.device) ~= node then
                status = 'CONFLICT'
              elseif e.op == 'J' and not device_in(e.uid, e.device) then
                if user_devices(e.class, e.uid) == 0 then
                  if seats(e.class) >= e.cap then
                    status = 'FULL'
                  else
                    counts[e.class] = seats(e.class) + 1
                  end
                end
                users[e.class .. '\n' .. e.uid] = user_devices(e.class, e.uid) + 1
                in_call[e.uid .. '\n' .. e.device] = e.class
              elseif e.op == 'L' then
                local class = device_in(e.uid, e.device)
                if class then
                  in_call[e.uid .. '\n' .. e.device] = false
                  users[class .. '\n' .. e.uid] = user_devices(class, e.uid) - 1
                  if users[class .. '\n' .. e.uid] <= 0 then counts[class] = seats(class) - 1 end
                end
              elseif e.op == 'A' or e.op == 'E' then
                -- Rare (moderation, end of session) and never followed by a join in one proposal: no simulation.
              end
            end
            if status == 'OK' then
              table.insert(reply, 'OK')
              local at = #reply
              table.insert(reply, 0)
              table.insert(reply, #events)
              for _, e in ipairs(events) do
                if effect(k, node, e.op, e.uid, e.device, e.class) then created = true end
                local seq, json = w.emit(e.json, e.actor, e.reason)
                reply[at + 1] = seq
                table.insert(reply, json)
              end
            else
              table.insert(reply, status)
              table.insert(reply, w.last)
              table.insert(reply, 0)
            end
          end
          w.finish(created)
          return reply
        elseif mode == 'index' then
          -- A: mode, prefix, rooms appended to: each takes the time of now in `P:rooms`.
          local arguments = {}
          for i = 3, #A do
            table.insert(arguments, now)
            table.insert(arguments, A[i])
          end
          if #arguments > 0 then redis.call('ZADD', prefix .. ':rooms', unpack(arguments)) end
          return #arguments / 2
        elseif mode == 'forget' then
          -- A: mode, prefix, expiry. Rooms without an entry for the expiry leave `P:rooms`.
          local expiry = tonumber(A[3])
          if expiry > 0 then return redis.call('ZREMRANGEBYSCORE', prefix .. ':rooms', '-inf', now - expiry) end
          return 0
        elseif mode == 'lease' then
          -- A: mode, prefix, node, lease, grace, expiry. Renews the node's lease; the reply: whether it was live, a few
          -- of its rooms (to check whether it still holds devices there), then per dead node to reap {node, phase
          -- (lost or left), its rooms}, which the caller reaps room by room (`reap`) and, after `left`, ends (`reaped`).
          local node, lease, grace, expiry = A[3], tonumber(A[4]), tonumber(A[5]), tonumber(A[6])
          -- A node that is not among the live ones was declared dead while it could not renew (its devices are being
          -- reaped): it is live again from now on, and tells its caller so (it then closes its participants' sockets so
          -- they come back and restore their devices).
          local was_live = redis.call('ZSCORE', live_nodes, node)
          if not was_live then redis.call('ZREM', dead_nodes, node) end
          redis.call('ZADD', live_nodes, now + lease, node)
          local mine = node_rooms(node)
          if expiry > 0 then redis.call('PEXPIRE', mine, expiry + lease + grace) end
          local reply = {was_live and 1 or 0, redis.call('SRANDMEMBER', mine, 16)}
          -- A node whose lease ran out: its devices are reconnecting for the grace period.
          for _, dead in ipairs(redis.call('ZRANGEBYSCORE', live_nodes, '-inf', now, 'LIMIT', 0, 16)) do
            redis.call('ZREM', live_nodes, dead)
            redis.call('ZADD', dead_nodes, now + grace, dead)
            table.insert(reply, {dead, 'lost', redis.call('SMEMBERS', node_rooms(dead))})
          end
          -- A node dead for the grace period: its devices that did not come back through another node leave. Handed
          -- out again a lease later unless `reaped` ends it first (a reaper that dies half-way is taken over).
          for _, dead in ipairs(redis.call('ZRANGEBYSCORE', dead_nodes, '-inf', now, 'LIMIT', 0, 16)) do
            redis.call('ZADD', dead_nodes, now + lease, dead)
            table.insert(reply, {dead, 'left', redis.call('SMEMBERS', node_rooms(dead))})
          end
          return reply
        elseif mode == 'reaped' then
          -- A: mode, prefix, dead node. Every room of a node dead past its grace was reaped: it is forgotten (unless
          -- it came back meanwhile).
          local dead = A[3]
          if redis.call('ZSCORE', live_nodes, dead) then return 0 end
          redis.call('ZREM', dead_nodes, dead)
          redis.call('DEL', node_rooms(dead))
          return 1
        elseif mode == 'reap' then
          -- A: mode, prefix, room, dead node, phase (lost or left), max entries, max age, expiry. Each device the dead
          -- node holds in the room is lost (reconnecting), or leaves; the reply: how many.
          local k = keys(A[3])
          local dead, phase = A[4], A[5]
          local w = writer(k, tonumber(A[6]), tonumber(A[7]), tonumber(A[8]))
          local owners = redis.call('HGETALL', k.own)
          local reaped = 0
          for j = 1, #owners, 2 do
            if owners[j + 1] == dead then
              local uid, device = string.match(owners[j], '^(.-)\n(.*)$')
              if uid then
                if phase == 'left' then
                  device_leaves(k, uid, device)
                  w.emit(cjson.encode({t = 'left', uid = uid, device = device, reason = 'timed_out'}), '', '')
                else
                  w.emit(cjson.encode({t = 'lost', uid = uid, device = device}), '', '')
                end
                reaped = reaped + 1
              end
            end
          end
          w.finish(false)
          return reaped
        elseif mode == 'holds' then
          -- A: mode, prefix, room, node. 1 when the node holds a device in the room.
          for _, owner in ipairs(redis.call('HVALS', keys(A[3]).own)) do
            if owner == A[4] then return 1 end
          end
          return 0
        elseif mode == 'touch' then
          -- A: mode, prefix, room, expiry. Keeps a followed room's records alive.
          touch(keys(A[3]), tonumber(A[4]))
          return 1
        elseif mode == 'checkpoint' then
          -- A: mode, prefix, room, epoch, seq, data, expiry
          local k = keys(A[3])
          local seq = tonumber(A[5])
          if redis.call('GET', k.epoch) ~= A[4] then return 0 end
          if tonumber(redis.call('HGET', k.ckpt, 'seq') or '0') >= seq then return 0 end
          redis.call('HSET', k.ckpt, 'seq', seq, 'epoch', A[4], 'data', A[6])
          touch(k, tonumber(A[7]))
          return 1
        end
        return redis.error_reply('unknown mode ' .. tostring(mode))
        """#
}
