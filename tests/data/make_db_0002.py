"""How ``atout-0002.db`` was made, with the code at main before issue 12 (commit d25ad96,
migrations 0001 and 0002): a real server, guests playing full deals at a public and a private
table, and a table left with a deal in progress.

    ATOUT_SHARED=/work/shared .venv/bin/python tests/data/make_db_0002.py OUT.db
"""

import asyncio
import random
import sys

sys.path.insert(0, "tests")
from helpers_server import (
    Client,
    autoplay,
    create_table,
    is_event,
    running_server,
    table_finished,
)


async def main(path: str) -> None:
    async with running_server(path, seed=7) as srv:
        a = await Client.connect(srv.port, "Marie")
        b = await Client.connect(srv.port, "Bob")
        t1 = await create_table(a, deals=3, name="Public")
        await a.join(t1, 0)
        await b.join(t1, 1)
        await a.request({"type": "start", "table": t1})
        await asyncio.gather(
            autoplay(a, t1, random.Random(1), table_finished),
            autoplay(b, t1, random.Random(2), table_finished),
        )
        t2 = await create_table(b, deals=2, name="Private", public=False)
        await b.join(t2, 2)
        await b.request({"type": "start", "table": t2})
        await autoplay(b, t2, random.Random(3), table_finished)
        t3 = await create_table(a, deals=2, name="Unfinished")
        await a.join(t3, 3)
        await a.request({"type": "start", "table": t3})
        await autoplay(a, t3, random.Random(4), is_event("trick", number=3))
        print(t1, t2, t3)


asyncio.run(main(sys.argv[1]))
