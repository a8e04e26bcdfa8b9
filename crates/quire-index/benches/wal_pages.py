#!/usr/bin/env python3
"""WAL pages one index transaction appends, with the index's own schema (read from pages.rs).

Builds a 10,000-page database like the index's (full-text body of 300 words, five links, a tag,
a heading, a property per page), then rewrites pages as the index does and prints the WAL bytes
and 4 KiB frames per transaction.

    python3 crates/quire-index/benches/wal_pages.py N MODE
    N: pages per transaction; MODE: all (every table), fts (full text only), rest (all but it)
"""
import os, random, re, sqlite3, sys
src=open(os.path.join(os.path.dirname(__file__), '..', 'src', 'pages.rs')).read()
schema=re.search(r'CONTENT_SCHEMA: &str = "(.*?)";',src,re.S).group(1)
idx=re.search(r'CONTENT_INDEXES: &str = "(.*?)";',src,re.S).group(1)
import tempfile
p=os.path.join(tempfile.mkdtemp(), 'wal.db')
for f in [p,p+'-wal',p+'-shm']:
    if os.path.exists(f): os.remove(f)
c=sqlite3.connect(p, isolation_level=None)
c.execute('pragma journal_mode=wal'); c.execute('pragma synchronous=normal'); c.execute('pragma wal_autocheckpoint=0')
c.executescript(schema); c.executescript(idx)
words=[ ''.join(random.choice('abcdefghij') for _ in range(6)) for _ in range(5000)]
def body(): return ' '.join(random.choice(words) for _ in range(300))
c.execute('begin')
for i in range(10000):
    path=f'folder{i%100}/page{i}.md'
    cur=c.execute('insert into pages (path,title,size,mtime_ms,word_count,frontmatter,trusted,text_hash,meta_hash,links_hash,tags_hash,body_line) values (?,?,?,?,?,?,?,?,?,?,?,?)',(path,f'Page {i}',100,0,300,'{"tags":["a"]}',0,1,1,1,1,3))
    rid=cur.lastrowid
    c.execute('insert into fts(rowid,path,title,headings,body,labels,properties,place,file,tagged) values (?,?,?,?,?,?,?,?,?,?)',(rid,path,f'Page {i}','Heading',body(),'','','folder','page','a'))
    for k in range(5): c.execute('insert into links values (?,?,?,?,?)',(path,f'page{random.randrange(10000)}',f'folder/page{random.randrange(10000)}.md','wiki',k))
    c.execute('insert into tags values (?,?)',(path,'a'))
    c.execute('insert into headings values (?,?,?,?,?)',(path,1,'Heading','heading',1))
    c.execute('insert into frontmatter values (?,?,?,?,?)',(path,'tags','a',None,None))
c.execute('commit')
c.execute('pragma wal_checkpoint(truncate)')
def walsize(): return os.path.getsize(p+'-wal') if os.path.exists(p+'-wal') else 0
n=int(sys.argv[1]); mode=sys.argv[2]
before=walsize()
T=50
for t in range(T):
    c.execute('begin immediate')
    for j in range(n):
        i=random.randrange(10000); path=f'folder{i%100}/page{i}.md'
        rid=c.execute('select id from pages where path=?',(path,)).fetchone()[0]
        if mode in ('fts','all'): c.execute('delete from fts where rowid=?',(rid,))
        if mode in ('fts','all'): c.execute('insert into fts(rowid,path,title,headings,body,labels,properties,place,file,tagged) values (?,?,?,?,?,?,?,?,?,?)',(rid,path,'Rewritten','', f'Benchmark write {t} {j}','','','folder','page',''))
        if mode=='fts': continue
        c.execute('update pages set size=? where id=?',(50,rid))
        c.execute('delete from links where source=?',(path,))
        c.execute('delete from tags where path=?',(path,))
        c.execute('delete from headings where path=?',(path,))
        c.execute('delete from frontmatter where path=?',(path,))
    c.execute('commit')
print(n, 'pages/tx: WAL bytes per tx', (walsize()-before)/T, 'frames', (walsize()-before)/T/4120)
