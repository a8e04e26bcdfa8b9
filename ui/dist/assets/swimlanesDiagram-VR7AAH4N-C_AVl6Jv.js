import{c as r,s as e}from"./flowDiagram-HODETNUW-CvTYBMXF.js";import{_ as a}from"./diagram-DcIM1fdG.js";import"./chunk-5VM5RSS4-B3-pIvNg.js";import"./chunk-XXDRQBXY-BNnMleUw.js";import"./chunk-POPQ4Y6H-ByafnFbV.js";import"./chunk-F27PBJKO-C2Olk0Np.js";import"./channel-D7YbzYKa.js";import"./index-arrbJ88O.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
