/// The Lua script behind webhooks in a cluster: an endpoint's lease and cursor, changed atomically, so only the
/// node holding the lease moves the cursor, and each room's only forward (within the epoch of its records).
///
/// Keys, for a prefix `P` and an endpoint `E`: `P:hook:E:lease` the node delivering for the endpoint (a string that
/// expires with the lease); `P:hook:E:cursor` the last `seq` given per room, as `SEQ/EPOCH` (a hash by room);
/// `P:hook:E:dead` the entries given up on, newest last, as JSON `{"room","seq","time","error"}` (a list, capped).
enum WebhookScript {
    static let source = #"""
        local mode = ARGV[1]
        local lease_key, node, lease = ARGV[2], ARGV[3], tonumber(ARGV[4])
        local holder = redis.call('GET', lease_key)
        if holder and holder ~= node then return 0 end
        if mode == 'claim' then
          -- ARGV: mode, lease key, node, lease (ms)
          redis.call('SET', lease_key, node, 'PX', lease)
          return 1
        elseif mode == 'advance' then
          -- ARGV: mode, lease key, node, lease, cursor key, dead key, dead cap, pair count, room, SEQ/EPOCH or '' (forget
          -- the room)..., dead...
          -- A lapsed lease nobody took is still this node's.
          local cursor_key, dead_key, dead_cap, pairs = ARGV[5], ARGV[6], tonumber(ARGV[7]), tonumber(ARGV[8])
          for i = 9, 8 + pairs * 2, 2 do
            local room, value = ARGV[i], ARGV[i + 1]
            if value == '' then
              redis.call('HDEL', cursor_key, room)
            else
              -- Forward only within an epoch: a node whose lease lapsed unseen never moves a room back.
              local old_seq, old_epoch = string.match(redis.call('HGET', cursor_key, room) or '', '^(%d+)/(.*)$')
              local new_seq, new_epoch = string.match(value, '^(%d+)/(.*)$')
              if not (old_seq and old_epoch == new_epoch and tonumber(old_seq) > tonumber(new_seq)) then
                redis.call('HSET', cursor_key, room, value)
              end
            end
          end
          if #ARGV > 8 + pairs * 2 then
            for i = 9 + pairs * 2, #ARGV do redis.call('RPUSH', dead_key, ARGV[i]) end
            redis.call('LTRIM', dead_key, -dead_cap, -1)
          end
          redis.call('SET', lease_key, node, 'PX', lease)
          return 1
        end
        return redis.error_reply('unknown mode ' .. tostring(mode))
        """#
}
