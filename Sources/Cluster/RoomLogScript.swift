/// The Lua script that keeps the cluster's shared room logs in Redis. Redis runs a script atomically, so every
/// check and every append in one call happens at once for all nodes: the sequence numbers, the seat count behind
/// `ERR_CALL_FULL`, device ownership and the reaping of dead nodes cannot race.
///
/// Keys, for a prefix `P` and a room `R`:
/// - `P:room:R:seq` the room's last sequence number; `P:room:R:epoch` an id that changes when the room's records
///   start afresh (they expired or were flushed), so nodes never mix two histories;
/// - `P:room:R:log` the log, a stream whose entry ids are `SEQ-0`, each with the entry's JSON (`e`) and time (`t`),
///   also published on the channel `P:room:R`;
/// - `P:room:R:devices` joined devices (`uid\ndevice` → seat class `p` or `r`), `P:room:R:seats:p` and
///   `P:room:R:seats:r` joined users by class (uid → devices), `P:room:R:own` the node holding each device;
/// - `P:room:R:ckpt` the latest checkpoint (`seq`, `epoch`, `data`);
/// - `P:rooms` every room by the time of its last entry (what webhooks in a cluster look at for new entries; a room
///   whose records expired leaves it with the next lease renewal);
/// - `P:nodes` live nodes by lease end, `P:dead` nodes past their lease by the end of the grace period,
///   `P:node:N:devices` the devices node N holds (`R\nuid\ndevice`).
enum RoomLogScript {
    static let source = #"""
        local mode = ARGV[1]
        local prefix = ARGV[2]
        local time = redis.call('TIME')
        local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

        local function keys(room)
          local base = prefix .. ':room:' .. room
          return {
            seq = base .. ':seq', epoch = base .. ':epoch', log = base .. ':log', devices = base .. ':devices',
            seats_p = base .. ':seats:p', seats_r = base .. ':seats:r', own = base .. ':own', ckpt = base .. ':ckpt',
            channel = base, id = room
          }
        end

        local function node_devices(node) return prefix .. ':node:' .. node .. ':devices' end

        local function touch(k, expiry)
          if expiry > 0 then
            for _, name in ipairs({'seq', 'epoch', 'log', 'devices', 'seats_p', 'seats_r', 'own', 'ckpt'}) do
              redis.call('PEXPIRE', k[name], expiry)
            end
          end
        end

        -- Seat and ownership bookkeeping, mirroring the reducer: a user takes one seat of their class while any of their
        -- devices is in the call.
        local function device_leaves(k, room, uid, device)
          local field = uid .. '\n' .. device
          local class = redis.call('HGET', k.devices, field)
          if not class then return end
          redis.call('HDEL', k.devices, field)
          local seats = class == 'r' and k.seats_r or k.seats_p
          if redis.call('HINCRBY', seats, uid, -1) <= 0 then redis.call('HDEL', seats, uid) end
          local owner = redis.call('HGET', k.own, field)
          if owner then
            redis.call('SREM', node_devices(owner), room .. '\n' .. field)
            redis.call('HDEL', k.own, field)
          end
        end

        local function take_device(k, room, uid, device, node)
          local field = uid .. '\n' .. device
          local owner = redis.call('HGET', k.own, field)
          if owner and owner ~= node then redis.call('SREM', node_devices(owner), room .. '\n' .. field) end
          redis.call('HSET', k.own, field, node)
          redis.call('SADD', node_devices(node), room .. '\n' .. field)
        end

        local function effect(k, room, node, op, uid, device, class)
          if op == 'J' then
            local field = uid .. '\n' .. device
            if not redis.call('HGET', k.devices, field) then
              redis.call('HSET', k.devices, field, class)
              redis.call('HINCRBY', class == 'r' and k.seats_r or k.seats_p, uid, 1)
            end
            take_device(k, room, uid, device, node)
          elseif op == 'R' then
            if redis.call('HGET', k.devices, uid .. '\n' .. device) then take_device(k, room, uid, device, node) end
          elseif op == 'L' then
            device_leaves(k, room, uid, device)
          elseif op == 'A' then
            local all = redis.call('HKEYS', k.devices)
            for _, field in ipairs(all) do
              local cut = string.find(field, '\n', 1, true)
              if cut and string.sub(field, 1, cut - 1) == uid then device_leaves(k, room, uid, string.sub(field, cut + 1)) end
            end
          elseif op == 'E' then
            local owners = redis.call('HGETALL', k.own)
            for i = 1, #owners, 2 do redis.call('SREM', node_devices(owners[i + 1]), room .. '\n' .. owners[i]) end
            redis.call('DEL', k.devices, k.seats_p, k.seats_r, k.own)
          end
        end

        -- Appends one entry: numbers it, stores it, publishes it, trims the log (never past the checkpoint).
        local function emit(k, event, actor, reason, max_entries, max_age, expiry)
          local seq = redis.call('INCR', k.seq)
          local epoch = redis.call('GET', k.epoch)
          if seq == 1 or not epoch then
            epoch = tostring(now) .. '-' .. tostring(redis.call('INCR', prefix .. ':epochs'))
            redis.call('SET', k.epoch, epoch)
          end
          local json = '{"seq":' .. seq .. ',"time":' .. now .. ',"epoch":' .. cjson.encode(epoch)
            .. ',"actor":' .. (actor ~= '' and cjson.encode(actor) or 'null')
            .. ',"reason":' .. (reason ~= '' and cjson.encode(reason) or 'null') .. ',"event":' .. event .. '}'
          redis.call('XADD', k.log, seq .. '-0', 'e', json, 't', now)
          redis.call('PUBLISH', k.channel, json)
          redis.call('ZADD', prefix .. ':rooms', now, k.id)
          local checkpoint = tonumber(redis.call('HGET', k.ckpt, 'seq') or '0')
          local keep = math.min(seq - max_entries + 1, checkpoint + 1)
          if max_age > 0 then
            local oldest = redis.call('XRANGE', k.log, '-', '+', 'COUNT', 32)
            for _, item in ipairs(oldest) do
              local item_seq = tonumber(string.match(item[1], '^(%d+)'))
              local item_time = tonumber(item[2][4])
              if item_seq <= checkpoint and item_time and now - item_time > max_age then
                keep = math.max(keep, item_seq + 1)
              end
            end
          end
          if keep > 1 then redis.call('XTRIM', k.log, 'MINID', keep .. '-0') end
          touch(k, expiry)
          return seq, json
        end

        if mode == 'append' then
          -- ARGV: mode, prefix, room, node, expected seq or '', max entries, max age, expiry, then per event:
          -- JSON, actor, reason, op (J R L A E or -), uid, device, seat class, capacity, needs ownership (1 or 0).
          local room, node, expected = ARGV[3], ARGV[4], ARGV[5]
          local max_entries, max_age, expiry = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
          local k = keys(room)
          local last = tonumber(redis.call('GET', k.seq) or '0')
          if expected ~= '' and tonumber(expected) ~= last then return {'CONFLICT', last} end
          local events = {}
          for i = 9, #ARGV, 9 do
            table.insert(events, {json = ARGV[i], actor = ARGV[i + 1], reason = ARGV[i + 2], op = ARGV[i + 3],
              uid = ARGV[i + 4], device = ARGV[i + 5], class = ARGV[i + 6], cap = tonumber(ARGV[i + 7]),
              owned = ARGV[i + 8] == '1'})
          end
          -- Every condition is checked before anything is written: all or none.
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
            if e.owned and redis.call('HGET', k.own, e.uid .. '\n' .. e.device) ~= node then return {'CONFLICT', last} end
            if e.op == 'J' and not device_in(e.uid, e.device) then
              if user_devices(e.class, e.uid) == 0 then
                if seats(e.class) >= e.cap then return {'FULL', last} end
                counts[e.class] = seats(e.class) + 1
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
              -- Rare (moderation, end of session) and never followed by a join in one call: no simulation needed.
            end
          end
          local reply = {'OK', 0}
          for _, e in ipairs(events) do
            effect(k, room, node, e.op, e.uid, e.device, e.class)
            local seq, json = emit(k, e.json, e.actor, e.reason, max_entries, max_age, expiry)
            reply[2] = seq
            table.insert(reply, json)
          end
          return reply
        elseif mode == 'lease' then
          -- ARGV: mode, prefix, node, lease, grace, max entries, max age, expiry, rooms to keep alive...
          local node, lease, grace = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
          local max_entries, max_age, expiry = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
          -- A node that is not among the live ones was declared dead while it could not renew (its devices are being
          -- reaped): it is live again from now on, and tells its caller so (it then closes its participants' sockets so
          -- they come back and restore their devices).
          local was_live = redis.call('ZSCORE', prefix .. ':nodes', node)
          if not was_live then redis.call('ZREM', prefix .. ':dead', node) end
          redis.call('ZADD', prefix .. ':nodes', now + lease, node)
          if expiry > 0 then redis.call('PEXPIRE', node_devices(node), expiry + lease + grace) end
          for i = 9, #ARGV do touch(keys(ARGV[i]), expiry) end
          if expiry > 0 then redis.call('ZREMRANGEBYSCORE', prefix .. ':rooms', '-inf', now - expiry) end
          local reaped = 0
          -- A node whose lease ran out: its devices are reconnecting for the grace period.
          for _, dead in ipairs(redis.call('ZRANGEBYSCORE', prefix .. ':nodes', '-inf', now, 'LIMIT', 0, 16)) do
            redis.call('ZREM', prefix .. ':nodes', dead)
            redis.call('ZADD', prefix .. ':dead', now + grace, dead)
            for _, member in ipairs(redis.call('SMEMBERS', node_devices(dead))) do
              local room, uid, device = string.match(member, '^(.-)\n(.-)\n(.*)$')
              local k = keys(room)
              if room and redis.call('HGET', k.own, uid .. '\n' .. device) == dead then
                emit(k, cjson.encode({t = 'lost', uid = uid, device = device}), '', '', max_entries, max_age, expiry)
                reaped = reaped + 1
              end
            end
          end
          -- A node dead for the grace period: its devices that did not come back through another node leave.
          for _, dead in ipairs(redis.call('ZRANGEBYSCORE', prefix .. ':dead', '-inf', now, 'LIMIT', 0, 16)) do
            redis.call('ZREM', prefix .. ':dead', dead)
            for _, member in ipairs(redis.call('SMEMBERS', node_devices(dead))) do
              local room, uid, device = string.match(member, '^(.-)\n(.-)\n(.*)$')
              local k = keys(room)
              if room and redis.call('HGET', k.own, uid .. '\n' .. device) == dead then
                device_leaves(k, room, uid, device)
                emit(k, cjson.encode({t = 'left', uid = uid, device = device, reason = 'timed_out'}), '', '',
                  max_entries, max_age, expiry)
                reaped = reaped + 1
              end
            end
            redis.call('DEL', node_devices(dead))
          end
          return {reaped, was_live and 1 or 0}
        elseif mode == 'checkpoint' then
          -- ARGV: mode, prefix, room, epoch, seq, data, expiry
          local k = keys(ARGV[3])
          local seq = tonumber(ARGV[5])
          if redis.call('GET', k.epoch) ~= ARGV[4] then return 0 end
          if tonumber(redis.call('HGET', k.ckpt, 'seq') or '0') >= seq then return 0 end
          redis.call('HSET', k.ckpt, 'seq', seq, 'epoch', ARGV[4], 'data', ARGV[6])
          touch(k, tonumber(ARGV[7]))
          return 1
        end
        return redis.error_reply('unknown mode ' .. tostring(mode))
        """#
}
