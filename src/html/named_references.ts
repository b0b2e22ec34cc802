// The HTML standard's named character references (`&amp;`, `&NotEqualTilde;`…). Written by
// `deno run -A tests/support/named_references.ts` from the `entities` package's table;
// tests/html_decode_test.ts keeps decode() equal to that package's decoder. Grouped by value:
// each value's first code point as its base-36 distance from the previous value's (`+` a second
// code point), `:`, its names (`,` between them, `!`: the `;` may go), `;` between values.
const TABLE = `
9:Tab;1:NewLine;n:excl;1:QUOT!,quot!;1:num;1:dollar;1:percnt;1:AMP!,amp!;1:apos;1:lpar;1:rpar;1:
ast,midast;1:plus;1:comma;2:period;1:sol;b:colon;1:semi;1:LT!,lt!;0+6he:nvlt;1:equals;0+6hx:bne;
1:GT!,gt!;0+6he:nvgt;1:quest;1:commat;r:lbrack,lsqb;1:bsol;1:rbrack,rsqb;1:Hat;1:UnderBar,lowbar
;1:DiacriticalGrave,grave;6+2y:fjlig;l:lbrace,lcub;1:VerticalLine,verbar,vert;1:rbrace,rcub;z:No
nBreakingSpace,nbsp!;1:iexcl!;1:cent!;1:pound!;1:curren!;1:yen!;1:brvbar!;1:sect!;1:Dot,DoubleDo
t,die,uml!;1:COPY!,copy!;1:ordf!;1:laquo!;1:not!;1:shy!;1:REG!,circledR,reg!;1:macr!,strns;1:deg
!;1:PlusMinus,plusmn!,pm;1:sup2!;1:sup3!;1:DiacriticalAcute,acute!;1:micro!;1:para!;1:CenterDot,
centerdot,middot!;1:Cedilla,cedil!;1:sup1!;1:ordm!;1:raquo!;1:frac14!;1:frac12!,half;1:frac34!;1
:iquest!;1:Agrave!;1:Aacute!;1:Acirc!;1:Atilde!;1:Auml!;1:Aring!,angst;1:AElig!;1:Ccedil!;1:Egra
ve!;1:Eacute!;1:Ecirc!;1:Euml!;1:Igrave!;1:Iacute!;1:Icirc!;1:Iuml!;1:ETH!;1:Ntilde!;1:Ograve!;1
:Oacute!;1:Ocirc!;1:Otilde!;1:Ouml!;1:times!;1:Oslash!;1:Ugrave!;1:Uacute!;1:Ucirc!;1:Uuml!;1:Ya
cute!;1:THORN!;1:szlig!;1:agrave!;1:aacute!;1:acirc!;1:atilde!;1:auml!;1:aring!;1:aelig!;1:ccedi
l!;1:egrave!;1:eacute!;1:ecirc!;1:euml!;1:igrave!;1:iacute!;1:icirc!;1:iuml!;1:eth!;1:ntilde!;1:
ograve!;1:oacute!;1:ocirc!;1:otilde!;1:ouml!;1:div,divide!;1:oslash!;1:ugrave!;1:uacute!;1:ucirc
!;1:uuml!;1:yacute!;1:thorn!;1:yuml!;1:Amacr;1:amacr;1:Abreve;1:abreve;1:Aogon;1:aogon;1:Cacute;
1:cacute;1:Ccirc;1:ccirc;1:Cdot;1:cdot;1:Ccaron;1:ccaron;1:Dcaron;1:dcaron;1:Dstrok;1:dstrok;1:E
macr;1:emacr;3:Edot;1:edot;1:Eogon;1:eogon;1:Ecaron;1:ecaron;1:Gcirc;1:gcirc;1:Gbreve;1:gbreve;1
:Gdot;1:gdot;1:Gcedil;2:Hcirc;1:hcirc;1:Hstrok;1:hstrok;1:Itilde;1:itilde;1:Imacr;1:imacr;3:Iogo
n;1:iogon;1:Idot;1:imath,inodot;1:IJlig;1:ijlig;1:Jcirc;1:jcirc;1:Kcedil;1:kcedil;1:kgreen;1:Lac
ute;1:lacute;1:Lcedil;1:lcedil;1:Lcaron;1:lcaron;1:Lmidot;1:lmidot;1:Lstrok;1:lstrok;1:Nacute;1:
nacute;1:Ncedil;1:ncedil;1:Ncaron;1:ncaron;1:napos;1:ENG;1:eng;1:Omacr;1:omacr;3:Odblac;1:odblac
;1:OElig;1:oelig;1:Racute;1:racute;1:Rcedil;1:rcedil;1:Rcaron;1:rcaron;1:Sacute;1:sacute;1:Scirc
;1:scirc;1:Scedil;1:scedil;1:Scaron;1:scaron;1:Tcedil;1:tcedil;1:Tcaron;1:tcaron;1:Tstrok;1:tstr
ok;1:Utilde;1:utilde;1:Umacr;1:umacr;1:Ubreve;1:ubreve;1:Uring;1:uring;1:Udblac;1:udblac;1:Uogon
;1:uogon;1:Wcirc;1:wcirc;1:Ycirc;1:ycirc;1:Yuml;1:Zacute;1:zacute;1:Zdot;1:zdot;1:Zcaron;1:zcaro
n;k:fnof;z:imped;1s:gacute;1u:jmath;3z:circ;1:Hacek,caron;h:Breve,breve;1:DiacriticalDot,dot;1:r
ing;1:ogon;1:DiacriticalTilde,tilde;1:DiacriticalDoubleAcute,dblac;1g:DownBreve;3k:Alpha;1:Beta;
1:Gamma;1:Delta;1:Epsilon;1:Zeta;1:Eta;1:Theta;1:Iota;1:Kappa;1:Lambda;1:Mu;1:Nu;1:Xi;1:Omicron;
1:Pi;1:Rho;2:Sigma;1:Tau;1:Upsilon;1:Phi;1:Chi;1:Psi;1:Omega,ohm;8:alpha;1:beta;1:gamma;1:delta;
1:epsi,epsilon;1:zeta;1:eta;1:theta;1:iota;1:kappa;1:lambda;1:mu;1:nu;1:xi;1:omicron;1:pi;1:rho;
1:sigmaf,sigmav,varsigma;1:sigma;1:tau;1:upsi,upsilon;1:phi;1:chi;1:psi;1:omega;8:thetasym,theta
v,vartheta;1:Upsi,upsih;3:phiv,straightphi,varphi;1:piv,varpi;6:Gammad;1:digamma,gammad;j:kappav
,varkappa;1:rhov,varrho;4:epsiv,straightepsilon,varepsilon;1:backepsilon,bepsi;b:IOcy;1:DJcy;1:G
Jcy;1:Jukcy;1:DScy;1:Iukcy;1:YIcy;1:Jsercy;1:LJcy;1:NJcy;1:TSHcy;1:KJcy;2:Ubrcy;1:DZcy;1:Acy;1:B
cy;1:Vcy;1:Gcy;1:Dcy;1:IEcy;1:ZHcy;1:Zcy;1:Icy;1:Jcy;1:Kcy;1:Lcy;1:Mcy;1:Ncy;1:Ocy;1:Pcy;1:Rcy;1
:Scy;1:Tcy;1:Ucy;1:Fcy;1:KHcy;1:TScy;1:CHcy;1:SHcy;1:SHCHcy;1:HARDcy;1:Ycy;1:SOFTcy;1:Ecy;1:YUcy
;1:YAcy;1:acy;1:bcy;1:vcy;1:gcy;1:dcy;1:iecy;1:zhcy;1:zcy;1:icy;1:jcy;1:kcy;1:lcy;1:mcy;1:ncy;1:
ocy;1:pcy;1:rcy;1:scy;1:tcy;1:ucy;1:fcy;1:khcy;1:tscy;1:chcy;1:shcy;1:shchcy;1:hardcy;1:ycy;1:so
ftcy;1:ecy;1:yucy;1:yacy;2:iocy;1:djcy;1:gjcy;1:jukcy;1:dscy;1:iukcy;1:yicy;1:jsercy;1:ljcy;1:nj
cy;1:tshcy;1:kjcy;2:ubrcy;1:dzcy;5gj:ensp;1:emsp;1:emsp13;1:emsp14;2:numsp;1:puncsp;1:ThinSpace,
thinsp;1:VeryThinSpace,hairsp;1:NegativeMediumSpace,NegativeThickSpace,NegativeThinSpace,Negativ
eVeryThinSpace,ZeroWidthSpace;1:zwnj;1:zwj;1:lrm;1:rlm;1:dash,hyphen;3:ndash;1:mdash;1:horbar;1:
Verbar,Vert;2:OpenCurlyQuote,lsquo;1:CloseCurlyQuote,rsquo,rsquor;1:lsquor,sbquo;2:OpenCurlyDoub
leQuote,ldquo;1:CloseCurlyDoubleQuote,rdquo,rdquor;1:bdquo,ldquor;2:dagger;1:Dagger,ddagger;1:bu
ll,bullet;3:nldr;1:hellip,mldr;a:permil;1:pertenk;1:prime;1:Prime;1:tprime;1:backprime,bprime;4:
lsaquo;1:rsaquo;4:OverBar,oline;3:caret;2:hybull;1:frasl;b:bsemi;8:qprime;8:MediumSpace;0+6bu:Th
ickSpace;1:NoBreak;1:ApplyFunction,af;1:InvisibleTimes,it;1:InvisibleComma,ic;21:euro;1b:TripleD
ot,tdot;1:DotDot;12:Copf,complexes;3:incare;5:gscr;1:HilbertSpace,Hscr,hamilt;1:Hfr,Poincareplan
e;1:Hopf,quaternions;1:planckh;1:hbar,hslash,planck,plankv;1:Iscr,imagline;1:Ifr,Im,image,imagpa
rt;1:Laplacetrf,Lscr,lagran;1:ell;2:Nopf,naturals;1:numero;1:copysr;1:weierp,wp;1:Popf,primes;1:
Qopf,rationals;1:Rscr,realine;1:Re,Rfr,real,realpart;1:Ropf,reals;1:rx;4:TRADE,trade;2:Zopf,inte
gers;3:mho;1:Zfr,zeetrf;1:iiota;3:Bernoullis,Bscr,bernou;1:Cayleys,Cfr;2:escr;1:Escr,expectation
;1:Fouriertrf,Fscr;2:Mellintrf,Mscr,phmmat;1:order,orderof,oscr;1:alefsym,aleph;1:beth;1:gimel;1
:daleth;d:CapitalDifferentialD,DD;1:DifferentialD,dd;1:ExponentialE,ee,exponentiale;1:ImaginaryI
,ii;b:frac13;1:frac23;1:frac15;1:frac25;1:frac35;1:frac45;1:frac16;1:frac56;1:frac18;1:frac38;1:
frac58;1:frac78;1e:LeftArrow,ShortLeftArrow,larr,leftarrow,slarr;1:ShortUpArrow,UpArrow,uarr,upa
rrow;1:RightArrow,ShortRightArrow,rarr,rightarrow,srarr;1:DownArrow,ShortDownArrow,darr,downarro
w;1:LeftRightArrow,harr,leftrightarrow;1:UpDownArrow,updownarrow,varr;1:UpperLeftArrow,nwarr,nwa
rrow;1:UpperRightArrow,nearr,nearrow;1:LowerRightArrow,searr,searrow;1:LowerLeftArrow,swarr,swar
row;1:nlarr,nleftarrow;1:nrarr,nrightarrow;2:rarrw,rightsquigarrow;0+mw:nrarrw;1:Larr,twoheadlef
tarrow;1:Uarr;1:Rarr,twoheadrightarrow;1:Darr;1:larrtl,leftarrowtail;1:rarrtl,rightarrowtail;1:L
eftTeeArrow,mapstoleft;1:UpTeeArrow,mapstoup;1:RightTeeArrow,map,mapsto;1:DownTeeArrow,mapstodow
n;2:hookleftarrow,larrhk;1:hookrightarrow,rarrhk;1:larrlp,looparrowleft;1:looparrowright,rarrlp;
1:harrw,leftrightsquigarrow;1:nharr,nleftrightarrow;2:Lsh,lsh;1:Rsh,rsh;1:ldsh;1:rdsh;2:crarr;1:
cularr,curvearrowleft;1:curarr,curvearrowright;3:circlearrowleft,olarr;1:circlearrowright,orarr;
1:LeftVector,leftharpoonup,lharu;1:DownLeftVector,leftharpoondown,lhard;1:RightUpVector,uharr,up
harpoonright;1:LeftUpVector,uharl,upharpoonleft;1:RightVector,rharu,rightharpoonup;1:DownRightVe
ctor,rhard,rightharpoondown;1:RightDownVector,dharr,downharpoonright;1:LeftDownVector,dharl,down
harpoonleft;1:RightArrowLeftArrow,rightleftarrows,rlarr;1:UpArrowDownArrow,udarr;1:LeftArrowRigh
tArrow,leftrightarrows,lrarr;1:leftleftarrows,llarr;1:upuparrows,uuarr;1:rightrightarrows,rrarr;
1:ddarr,downdownarrows;1:ReverseEquilibrium,leftrightharpoons,lrhar;1:Equilibrium,rightleftharpo
ons,rlhar;1:nLeftarrow,nlArr;1:nLeftrightarrow,nhArr;1:nRightarrow,nrArr;1:DoubleLeftArrow,Lefta
rrow,lArr;1:DoubleUpArrow,Uparrow,uArr;1:DoubleRightArrow,Implies,Rightarrow,rArr;1:DoubleDownAr
row,Downarrow,dArr;1:DoubleLeftRightArrow,Leftrightarrow,hArr,iff;1:DoubleUpDownArrow,Updownarro
w,vArr;1:nwArr;1:neArr;1:seArr;1:swArr;1:Lleftarrow,lAarr;1:Rrightarrow,rAarr;2:zigrarr;7:LeftAr
rowBar,larrb;1:RightArrowBar,rarrb;g:DownArrowUpArrow,duarr;8:loarr;1:roarr;1:hoarr;1:ForAll,for
all;1:comp,complement;1:PartialD,part;0+mw:npart;1:Exists,exist;1:NotExists,nexist,nexists;1:emp
ty,emptyset,emptyv,varnothing;2:Del,nabla;1:Element,in,isin,isinv;1:NotElement,notin,notinva;2:R
everseElement,SuchThat,ni,niv;1:NotReverseElement,notni,notniva;3:Product,prod;1:Coproduct,copro
d;1:Sum,sum;1:minus;1:MinusPlus,mnplus,mp;1:dotplus,plusdo;2:Backslash,setminus,setmn,smallsetmi
nus,ssetmn;1:lowast;1:SmallCircle,compfn;2:Sqrt,radic;3:Proportional,prop,propto,varpropto,vprop
;1:infin;1:angrt;1:ang,angle;0+6he:nang;1:angmsd,measuredangle;1:angsph;1:VerticalBar,mid,shortm
id,smid;1:NotVerticalBar,nmid,nshortmid,nsmid;1:DoubleVerticalBar,par,parallel,shortparallel,spa
r;1:NotDoubleVerticalBar,npar,nparallel,nshortparallel,nspar;1:and,wedge;1:or,vee;1:cap;0+1e68:c
aps;1:cup;0+1e68:cups;1:Integral,int;1:Int;1:iiint,tint;1:ContourIntegral,conint,oint;1:Conint,D
oubleContourIntegral;1:Cconint;1:cwint;1:ClockwiseContourIntegral,cwconint;1:CounterClockwiseCon
tourIntegral,awconint;1:Therefore,there4,therefore;1:Because,becaus,because;1:ratio;1:Colon,Prop
ortion;1:dotminus,minusd;2:mDDot;1:homtht;1:Tilde,sim,thicksim,thksim;0+6he:nvsim;1:backsim,bsim
;0+mp:race;1:ac,mstpos;0+mr:acE;1:acd;1:VerticalTilde,wr,wreath;1:NotTilde,nsim;1:EqualTilde,eqs
im,esim;0+mw:NotEqualTilde,nesim;1:TildeEqual,sime,simeq;1:NotTildeEqual,nsime,nsimeq;1:TildeFul
lEqual,cong;1:simne;1:NotTildeFullEqual,ncong;1:TildeTilde,ap,approx,asymp,thickapprox,thkap;1:N
otTildeTilde,nap,napprox;1:ape,approxeq;1:apid;0+mw:napid;1:backcong,bcong;1:CupCap,asympeq;0+6h
e:nvap;1:Bumpeq,HumpDownHump,bump;0+mw:NotHumpDownHump,nbump;1:HumpEqual,bumpe,bumpeq;0+mw:NotHu
mpEqual,nbumpe;1:DotEqual,doteq,esdot;0+mw:nedot;1:doteqdot,eDot;1:efDot,fallingdotseq;1:erDot,r
isingdotseq;1:Assign,colone,coloneq;1:ecolon,eqcolon;1:ecir,eqcirc;1:circeq,cire;2:wedgeq;1:veee
q;2:triangleq,trie;3:equest,questeq;1:NotEqual,ne;1:Congruent,equiv;0+6hx:bnequiv;1:NotCongruent
,nequiv;2:le,leq;0+6he:nvle;1:GreaterEqual,ge,geq;0+6he:nvge;1:LessFullEqual,lE,leqq;0+mw:nlE,nl
eqq;1:GreaterFullEqual,gE,geqq;0+mw:NotGreaterFullEqual,ngE,ngeqq;1:lnE,lneqq;0+1e68:lvertneqq,l
vnE;1:gnE,gneqq;0+1e68:gvertneqq,gvnE;1:Lt,NestedLessLess,ll;0+mw:NotLessLess,nLtv;0+6he:nLt;1:G
t,NestedGreaterGreater,gg;0+mw:NotGreaterGreater,nGtv;0+6he:nGt;1:between,twixt;1:NotCupCap;1:No
tLess,nless,nlt;1:NotGreater,ngt,ngtr;1:NotLessEqual,nle,nleq;1:NotGreaterEqual,nge,ngeq;1:LessT
ilde,lesssim,lsim;1:GreaterTilde,gsim,gtrsim;1:NotLessTilde,nlsim;1:NotGreaterTilde,ngsim;1:Less
Greater,lessgtr,lg;1:GreaterLess,gl,gtrless;1:NotLessGreater,ntlg;1:NotGreaterLess,ntgl;1:Preced
es,pr,prec;1:Succeeds,sc,succ;1:PrecedesSlantEqual,prcue,preccurlyeq;1:SucceedsSlantEqual,sccue,
succcurlyeq;1:PrecedesTilde,precsim,prsim;1:SucceedsTilde,scsim,succsim;0+mw:NotSucceedsTilde;1:
NotPrecedes,npr,nprec;1:NotSucceeds,nsc,nsucc;1:sub,subset;0+6he:NotSubset,nsubset,vnsub;1:Super
set,sup,supset;0+6he:NotSuperset,nsupset,vnsup;1:nsub;1:nsup;1:SubsetEqual,sube,subseteq;1:Super
setEqual,supe,supseteq;1:NotSubsetEqual,nsube,nsubseteq;1:NotSupersetEqual,nsupe,nsupseteq;1:sub
ne,subsetneq;0+1e68:varsubsetneq,vsubne;1:supne,supsetneq;0+1e68:varsupsetneq,vsupne;2:cupdot;1:
UnionPlus,uplus;1:SquareSubset,sqsub,sqsubset;0+mw:NotSquareSubset;1:SquareSuperset,sqsup,sqsups
et;0+mw:NotSquareSuperset;1:SquareSubsetEqual,sqsube,sqsubseteq;1:SquareSupersetEqual,sqsupe,sqs
upseteq;1:SquareIntersection,sqcap;0+1e68:sqcaps;1:SquareUnion,sqcup;0+1e68:sqcups;1:CirclePlus,
oplus;1:CircleMinus,ominus;1:CircleTimes,otimes;1:osol;1:CircleDot,odot;1:circledcirc,ocir;1:cir
cledast,oast;2:circleddash,odash;1:boxplus,plusb;1:boxminus,minusb;1:boxtimes,timesb;1:dotsquare
,sdotb;1:RightTee,vdash;1:LeftTee,dashv;1:DownTee,top;1:UpTee,bot,bottom,perp;2:models;1:DoubleR
ightTee,vDash;1:Vdash;1:Vvdash;1:VDash;1:nvdash;1:nvDash;1:nVdash;1:nVDash;1:prurel;2:LeftTriang
le,vartriangleleft,vltri;1:RightTriangle,vartriangleright,vrtri;1:LeftTriangleEqual,ltrie,triang
lelefteq;0+6he:nvltrie;1:RightTriangleEqual,rtrie,trianglerighteq;0+6he:nvrtrie;1:origof;1:imof;
1:multimap,mumap;1:hercon;1:intcal,intercal;1:veebar;2:barvee;1:angrtvb;1:lrtri;1:Wedge,bigwedge
,xwedge;1:Vee,bigvee,xvee;1:Intersection,bigcap,xcap;1:Union,bigcup,xcup;1:Diamond,diam,diamond;
1:sdot;1:Star,sstarf;1:divideontimes,divonx;1:bowtie;1:ltimes;1:rtimes;1:leftthreetimes,lthree;1
:rightthreetimes,rthree;1:backsimeq,bsime;1:curlyvee,cuvee;1:curlywedge,cuwed;1:Sub,Subset;1:Sup
,Supset;1:Cap;1:Cup;1:fork,pitchfork;1:epar;1:lessdot,ltdot;1:gtdot,gtrdot;1:Ll;0+mw:nLl;1:Gg,gg
g;0+mw:nGg;1:LessEqualGreater,leg,lesseqgtr;0+1e68:lesg;1:GreaterEqualLess,gel,gtreqless;0+1e68:
gesl;3:cuepr,curlyeqprec;1:cuesc,curlyeqsucc;1:NotPrecedesSlantEqual,nprcue;1:NotSucceedsSlantEq
ual,nsccue;1:NotSquareSubsetEqual,nsqsube;1:NotSquareSupersetEqual,nsqsupe;3:lnsim;1:gnsim;1:pre
cnsim,prnsim;1:scnsim,succnsim;1:NotLeftTriangle,nltri,ntriangleleft;1:NotRightTriangle,nrtri,nt
riangleright;1:NotLeftTriangleEqual,nltrie,ntrianglelefteq;1:NotRightTriangleEqual,nrtrie,ntrian
glerighteq;1:vellip;1:ctdot;1:utdot;1:dtdot;1:disin;1:isinsv;1:isins;1:isindot;0+mw:notindot;1:n
otinvc;1:notinvb;2:isinE;0+mw:notinE;1:nisd;1:xnis;1:nis;1:notnivc;1:notnivb;7:barwed,barwedge;1
:Barwed,doublebarwedge;2:LeftCeiling,lceil;1:RightCeiling,rceil;1:LeftFloor,lfloor;1:RightFloor,
rfloor;1:drcrop;1:dlcrop;1:urcrop;1:ulcrop;1:bnot;2:profline;1:profsurf;2:telrec;1:target;6:ulco
rn,ulcorner;1:urcorn,urcorner;1:dlcorn,llcorner;1:drcorn,lrcorner;3:frown,sfrown;1:smile,ssmile;
a:cylcty;1:profalar;8:topbot;7:ovbar;2:solbar;1p:angzarr;1g:lmoust,lmoustache;1:rmoust,rmoustach
e;3:OverBracket,tbrk;1:UnderBracket,bbrk;1:bbrktbrk;12:OverParenthesis;1:UnderParenthesis;1:Over
Brace;1:UnderBrace;3:trpezium;5:elinters;1o:blank;4l:circledS,oS;1k:HorizontalLine,boxh;2:boxv;a
:boxdr;4:boxdl;4:boxur;4:boxul;4:boxvr;8:boxvl;8:boxhd;8:boxhu;8:boxvh;k:boxH;1:boxV;1:boxdR;1:b
oxDr;1:boxDR;1:boxdL;1:boxDl;1:boxDL;1:boxuR;1:boxUr;1:boxUR;1:boxuL;1:boxUl;1:boxUL;1:boxvR;1:b
oxVr;1:boxVR;1:boxvL;1:boxVl;1:boxVL;1:boxHd;1:boxhD;1:boxHD;1:boxHu;1:boxhU;1:boxHU;1:boxvH;1:b
oxVh;1:boxVH;k:uhblk;4:lhblk;4:block;9:blk14;1:blk12;1:blk34;e:Square,squ,square;9:FilledVerySma
llSquare,blacksquare,squarf,squf;1:EmptyVerySmallSquare;2:rect;1:marker;3:fltns;2:bigtriangleup,
xutri;1:blacktriangle,utrif;1:triangle,utri;3:blacktriangleright,rtrif;1:rtri,triangleright;4:bi
gtriangledown,xdtri;1:blacktriangledown,dtrif;1:dtri,triangledown;3:blacktriangleleft,ltrif;1:lt
ri,triangleleft;7:loz,lozenge;1:cir;x:tridot;3:bigcirc,xcirc;9:ultri;1:urtri;1:lltri;1:EmptySmal
lSquare;1:FilledSmallSquare;9:bigstar,starf;1:star;8:phone;1e:female;2:male;u:spades,spadesuit;3
:clubs,clubsuit;2:hearts,heartsuit;1:diamondsuit,diams;4:sung;3:flat;1:natur,natural;1:sharp;4k:
check,checkmark;4:cross;9:malt,maltese;m:sext;y:VerticalSeparator;q:lbbrk;1:rbbrk;2d:bsolhsub;1:
suphsol;t:LeftDoubleBracket,lobrk;1:RightDoubleBracket,robrk;1:LeftAngleBracket,lang,langle;1:Ri
ghtAngleBracket,rang,rangle;1:Lang;1:Rang;1:loang;1:roang;8:LongLeftArrow,longleftarrow,xlarr;1:
LongRightArrow,longrightarrow,xrarr;1:LongLeftRightArrow,longleftrightarrow,xharr;1:DoubleLongLe
ftArrow,Longleftarrow,xlArr;1:DoubleLongRightArrow,Longrightarrow,xrArr;1:DoubleLongLeftRightArr
ow,Longleftrightarrow,xhArr;2:longmapsto,xmap;3:dzigrarr;77:nvlArr;1:nvrArr;1:nvHarr;1:Map;7:lba
rr;1:bkarow,rbarr;1:lBarr;1:dbkarow,rBarr;1:RBarr,drbkarow;1:DDotrahd;1:UpArrowBar;1:DownArrowBa
r;3:Rarrtl;3:latail;1:ratail;1:lAtail;1:rAtail;1:larrfs;1:rarrfs;1:larrbfs;1:rarrbfs;3:nwarhk;1:
nearhk;1:hksearow,searhk;1:hkswarow,swarhk;1:nwnear;1:nesear,toea;1:seswar,tosa;1:swnwar;9:rarrc
;0+mw:nrarrc;2:cudarrr;1:ldca;1:rdca;1:cudarrl;1:larrpl;3:curarrm;1:cularrp;8:rarrpl;3:harrcir;1
:Uarrocir;1:lurdshar;1:ldrushar;3:LeftRightVector;1:RightUpDownVector;1:DownLeftRightVector;1:Le
ftUpDownVector;1:LeftVectorBar;1:RightVectorBar;1:RightUpVectorBar;1:RightDownVectorBar;1:DownLe
ftVectorBar;1:DownRightVectorBar;1:LeftUpVectorBar;1:LeftDownVectorBar;1:LeftTeeVector;1:RightTe
eVector;1:RightUpTeeVector;1:RightDownTeeVector;1:DownLeftTeeVector;1:DownRightTeeVector;1:LeftU
pTeeVector;1:LeftDownTeeVector;1:lHar;1:uHar;1:rHar;1:dHar;1:luruhar;1:ldrdhar;1:ruluhar;1:rdldh
ar;1:lharul;1:llhard;1:rharul;1:lrhard;1:UpEquilibrium,udhar;1:ReverseUpEquilibrium,duhar;1:Roun
dImplies;1:erarr;1:simrarr;1:larrsim;1:rarrsim;1:rarrap;1:ltlarr;2:gtrarr;1:subrarr;2:suplarr;1:
lfisht;1:rfisht;1:ufisht;1:dfisht;6:lopar;1:ropar;5:lbrke;1:rbrke;1:lbrkslu;1:rbrksld;1:lbrksld;
1:rbrkslu;1:langd;1:rangd;1:lparlt;1:rpargt;1:gtlPar;1:ltrPar;4:vzigzag;2:vangrt;1:angrtvbd;7:an
ge;1:range;1:dwangle;1:uwangle;1:angmsdaa;1:angmsdab;1:angmsdac;1:angmsdad;1:angmsdae;1:angmsdaf
;1:angmsdag;1:angmsdah;1:bemptyv;1:demptyv;1:cemptyv;1:raemptyv;1:laemptyv;1:ohbar;1:omid;1:opar
;2:operp;2:olcross;1:odsold;2:olcir;1:ofcir;1:olt;1:ogt;1:cirscir;1:cirE;1:solb;1:bsolb;4:boxbox
;4:trisb;1:rtriltri;1:LeftTriangleBar;0+mw:NotLeftTriangleBar;1:RightTriangleBar;0+mw:NotRightTr
iangleBar;c:iinfin;1:infintie;1:nvinfin;5:eparsl;1:smeparsl;1:eqvparsl;6:blacklozenge,lozf;9:Rul
eDelayed;2:dsol;a:bigodot,xodot;1:bigoplus,xoplus;1:bigotimes,xotime;2:biguplus,xuplus;2:bigsqcu
p,xsqcup;6:iiiint,qint;1:fpartint;3:cirfnint;1:awint;1:rppolint;1:scpolint;1:npolint;1:pointint;
1:quatint;1:intlarhk;b:pluscir;1:plusacir;1:simplus;1:plusdu;1:plussim;1:plustwo;2:mcomma;1:minu
sdu;3:loplus;1:roplus;1:Cross;1:timesd;1:timesbar;2:smashp;1:lotimes;1:rotimes;1:otimesas;1:Otim
es;1:odiv;1:triplus;1:triminus;1:tritime;1:intprod,iprod;3:amalg;1:capdot;2:ncup;1:ncap;1:capand
;1:cupor;1:cupcap;1:capcup;1:cupbrcap;1:capbrcup;1:cupcup;1:capcap;1:ccups;1:ccaps;3:ccupssm;3:A
nd;1:Or;1:andand;1:oror;1:orslope;1:andslope;2:andv;1:orv;1:andd;1:ord;2:wedbar;7:sdote;4:simdot
;3:congdot;0+mw:ncongdot;1:easter;1:apacir;1:apE;0+mw:napE;1:eplus;1:pluse;1:Esim;1:Colone;1:Equ
al;2:ddotseq,eDDot;1:equivDD;1:ltcir;1:gtcir;1:ltquest;1:gtquest;1:LessSlantEqual,leqslant,les;0
+mw:NotLessSlantEqual,nleqslant,nles;1:GreaterSlantEqual,geqslant,ges;0+mw:NotGreaterSlantEqual,
ngeqslant,nges;1:lesdot;1:gesdot;1:lesdoto;1:gesdoto;1:lesdotor;1:gesdotol;1:lap,lessapprox;1:ga
p,gtrapprox;1:lne,lneq;1:gne,gneq;1:lnap,lnapprox;1:gnap,gnapprox;1:lEg,lesseqqgtr;1:gEl,gtreqql
ess;1:lsime;1:gsime;1:lsimg;1:gsiml;1:lgE;1:glE;1:lesges;1:gesles;1:els,eqslantless;1:egs,eqslan
tgtr;1:elsdot;1:egsdot;1:el;1:eg;3:siml;1:simg;1:simlE;1:simgE;1:LessLess;0+mw:NotNestedLessLess
;1:GreaterGreater;0+mw:NotNestedGreaterGreater;2:glj;1:gla;1:ltcc;1:gtcc;1:lescc;1:gescc;1:smt;1
:lat;1:smte;0+1e68:smtes;1:late;0+1e68:lates;1:bumpE;1:PrecedesEqual,pre,preceq;0+mw:NotPrecedes
Equal,npre,npreceq;1:SucceedsEqual,sce,succeq;0+mw:NotSucceedsEqual,nsce,nsucceq;3:prE;1:scE;1:p
recneqq,prnE;1:scnE,succneqq;1:prap,precapprox;1:scap,succapprox;1:precnapprox,prnap;1:scnap,suc
cnapprox;1:Pr;1:Sc;1:subdot;1:supdot;1:subplus;1:supplus;1:submult;1:supmult;1:subedot;1:supedot
;1:subE,subseteqq;0+mw:nsubE,nsubseteqq;1:supE,supseteqq;0+mw:nsupE,nsupseteqq;1:subsim;1:supsim
;3:subnE,subsetneqq;0+1e68:varsubsetneqq,vsubnE;1:supnE,supsetneqq;0+1e68:varsupsetneqq,vsupnE;3
:csub;1:csup;1:csube;1:csupe;1:subsup;1:supsub;1:subsub;1:supsup;1:suphsub;1:supdsub;1:forkv;1:t
opfork;1:mlcp;9:Dashv,DoubleLeftTee;2:Vdashl;1:Barv;1:vBar;1:vBarv;2:Vbar;1:Not;1:bNot;1:rnmid;1
:cirmid;1:midcir;1:topcir;1:nhpar;1:parsim;a:parsl;0+6hx:nparsl;1537:fflig;1:filig;1:fllig;1:ffi
lig;1:ffllig;16zc:Ascr;2:Cscr;1:Dscr;3:Gscr;3:Jscr;1:Kscr;3:Nscr;1:Oscr;1:Pscr;1:Qscr;2:Sscr;1:T
scr;1:Uscr;1:Vscr;1:Wscr;1:Xscr;1:Yscr;1:Zscr;1:ascr;1:bscr;1:cscr;1:dscr;2:fscr;2:hscr;1:iscr;1
:jscr;1:kscr;1:lscr;1:mscr;1:nscr;2:pscr;1:qscr;1:rscr;1:sscr;1:tscr;1:uscr;1:vscr;1:wscr;1:xscr
;1:yscr;1:zscr;1h:Afr;1:Bfr;2:Dfr;1:Efr;1:Ffr;1:Gfr;3:Jfr;1:Kfr;1:Lfr;1:Mfr;1:Nfr;1:Ofr;1:Pfr;1:
Qfr;2:Sfr;1:Tfr;1:Ufr;1:Vfr;1:Wfr;1:Xfr;1:Yfr;2:afr;1:bfr;1:cfr;1:dfr;1:efr;1:ffr;1:gfr;1:hfr;1:
ifr;1:jfr;1:kfr;1:lfr;1:mfr;1:nfr;1:ofr;1:pfr;1:qfr;1:rfr;1:sfr;1:tfr;1:ufr;1:vfr;1:wfr;1:xfr;1:
yfr;1:zfr;1:Aopf;1:Bopf;2:Dopf;1:Eopf;1:Fopf;1:Gopf;2:Iopf;1:Jopf;1:Kopf;1:Lopf;1:Mopf;2:Oopf;4:
Sopf;1:Topf;1:Uopf;1:Vopf;1:Wopf;1:Xopf;1:Yopf;2:aopf;1:bopf;1:copf;1:dopf;1:eopf;1:fopf;1:gopf;
1:hopf;1:iopf;1:jopf;1:kopf;1:lopf;1:mopf;1:nopf;1:oopf;1:popf;1:qopf;1:ropf;1:sopf;1:topf;1:uop
f;1:vopf;1:wopf;1:xopf;1:yopf;1:zopf
`;

let references: Map<string, string> | undefined;

/**
 * What each reference stands for, by what follows the `&`: `name;` for every name, and `name`
 * alone for those whose `;` may go. Built on first use: no work at import.
 */
export function namedReferences(): Map<string, string> {
  if (references) return references;
  references = new Map();
  let previous = 0;
  for (const group of TABLE.replace(/\n/g, "").split(";")) {
    const [head, names] = group.split(":");
    const [first, second] = head.split("+");
    previous += parseInt(first, 36);
    const value = String.fromCodePoint(previous, ...(second ? [parseInt(second, 36)] : []));
    for (const name of names.split(",")) {
      if (name.endsWith("!")) references.set(name.slice(0, -1), value);
      references.set(`${name.replace("!", "")};`, value);
    }
  }
  return references;
}

/** The longest name whose `;` may go (`middot`, `plusmn`…). */
export const LONGEST_LEGACY_NAME = 6;
